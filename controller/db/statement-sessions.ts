// Prepared statements run in groups (the command queue's group commit), with one interface over both
// databases. On PostgreSQL each statement goes through Kysely: a round trip to the server, answered
// by a promise. On SQLite (`caps.synchronousStatements`) the statements run synchronously on the one
// connection, while Kysely's hold on it is taken: a group of writes runs in one turn, without the
// promise, driver and connection-mutex rounds Kysely spends on every statement, which cost more
// than SQLite takes to run a small statement.
import type { DatabaseConnection, SqliteDatabase } from 'kysely';
import type { DialectCapabilities } from './capabilities.js';
import type { Db } from './database.js';
import type { PreparedStatement } from './prepared-statement.js';
import { sqliteDatabaseOf } from './sqlite-immediate-dialect.js';

/** A value now (SQLite), or later (PostgreSQL). */
export type Eventually<T> = T | Promise<T>;

/** Runs statements on the connection (or the transaction) it was given for. */
export interface StatementRunner {
  /** The rows a statement answers (a SELECT, or a write with RETURNING). */
  rows<R>(statement: PreparedStatement<R>, values: readonly unknown[]): Eventually<R[]>;
  /** How many rows a write without RETURNING changed. */
  changes(statement: PreparedStatement<unknown>, values: readonly unknown[]): Eventually<number>;
}

export interface StatementSessions {
  /**
   * Runs `body` in one transaction: committed once `body` has returned (or its promise resolved),
   * rolled back when it throws (or its promise rejects).
   */
  transaction<T>(body: (run: StatementRunner) => Eventually<T>): Promise<T>;
  /** Runs `body` with no transaction of its own: each statement commits by itself. */
  alone<T>(body: (run: StatementRunner) => Eventually<T>): Promise<T>;
}

/** `next` applied to `value`: at once when the value is there, else once it is. */
export const then = <A, B>(value: Eventually<A>, next: (a: A) => Eventually<B>): Eventually<B> =>
  value instanceof Promise ? value.then(next) : next(value);

/** The sessions of this database: synchronous statements where the dialect has them. */
export function statementSessions(
  db: Db,
  caps: Pick<DialectCapabilities, 'synchronousStatements'>,
): StatementSessions {
  return caps.synchronousStatements ? new SqliteSessions(db) : new KyselySessions(db);
}

class KyselyRunner implements StatementRunner {
  constructor(private readonly db: Db) {}

  async rows<R>(statement: PreparedStatement<R>, values: readonly unknown[]): Promise<R[]> {
    return (await statement.run(this.db, values)).rows;
  }

  async changes(statement: PreparedStatement<unknown>, values: readonly unknown[]): Promise<number> {
    return Number((await statement.run(this.db, values)).numAffectedRows ?? 0);
  }
}

/** Every statement through Kysely (any dialect). */
export class KyselySessions implements StatementSessions {
  readonly #alone: KyselyRunner;

  constructor(private readonly db: Db) {
    this.#alone = new KyselyRunner(db);
  }

  transaction<T>(body: (run: StatementRunner) => Eventually<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => body(new KyselyRunner(trx)));
  }

  async alone<T>(body: (run: StatementRunner) => Eventually<T>): Promise<T> {
    return body(this.#alone);
  }
}

class SqliteRunner implements StatementRunner {
  constructor(private readonly database: SqliteDatabase) {}

  rows<R>(statement: PreparedStatement<R>, values: readonly unknown[]): R[] {
    return this.database.prepare(statement.sql).all(statement.parameters(values)) as R[];
  }

  changes(statement: PreparedStatement<unknown>, values: readonly unknown[]): number {
    return Number(this.database.prepare(statement.sql).run(statement.parameters(values)).changes);
  }

  exec(sql: string): void {
    this.database.prepare(sql).run([]);
  }
}

/** SQLite: statements run synchronously on the connection Kysely lends for the time of a session. */
class SqliteSessions implements StatementSessions {
  #runner: SqliteRunner | undefined;

  constructor(private readonly db: Db) {}

  transaction<T>(body: (run: StatementRunner) => Eventually<T>): Promise<T> {
    return this.db.getExecutor().provideConnection(async (connection) => {
      const run = this.#runnerOf(connection);
      // IMMEDIATE: the write lock is taken now, so another process's writer waits on the busy
      // timeout here instead of failing at the first write (sqlite-immediate-dialect.ts).
      run.exec('begin immediate');
      try {
        const result = await body(run);
        run.exec('commit');
        return result;
      } catch (err) {
        try {
          run.exec('rollback');
        } catch {
          // SQLite already rolled back (a failed COMMIT may): nothing is left open.
        }
        throw err;
      }
    });
  }

  alone<T>(body: (run: StatementRunner) => Eventually<T>): Promise<T> {
    return this.db.getExecutor().provideConnection(async (connection) => body(this.#runnerOf(connection)));
  }

  #runnerOf(connection: DatabaseConnection): SqliteRunner {
    if (this.#runner === undefined) {
      const database = sqliteDatabaseOf(connection);
      if (database === undefined)
        throw new Error('synchronous statements need the SQLite dialect of database.ts');
      this.#runner = new SqliteRunner(database);
    }
    return this.#runner;
  }
}
