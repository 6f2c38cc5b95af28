// Kysely's SQLite driver opens transactions with a plain (deferred) BEGIN. Two controller
// processes on one file would then both read, both try to write, and one would fail with
// SQLITE_BUSY instead of waiting. BEGIN IMMEDIATE takes the write lock up front so the
// busy_timeout makes the second writer wait.
//
// Kysely's SQLite adapter also runs migrations outside any transaction and without a lock (it
// assumes one process). SQLite's DDL is transactional, so the adapter below says so: each
// migration run is then one BEGIN IMMEDIATE transaction, and a second controller starting on the
// same file waits for the first and finds the migrations done.
//
// The driver also says which database a connection it handed out runs on (`sqliteDatabaseOf`), so
// that code holding that connection may run statements on it synchronously (statement-sessions.ts).
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
} from 'kysely';
import type { SqliteDatabase, SqliteDialectConfig } from 'kysely';

/** The database of each connection an `ImmediateSqliteDriver` handed out. */
const databases = new WeakMap<DatabaseConnection, SqliteDatabase>();

/**
 * The SQLite database under `connection`, for a connection of this dialect's driver (undefined
 * for any other). Only while the connection is held (`provideConnection`): Kysely then runs
 * nothing else on it.
 */
export const sqliteDatabaseOf = (connection: DatabaseConnection): SqliteDatabase | undefined =>
  databases.get(connection);

class ImmediateSqliteDriver extends SqliteDriver {
  readonly #database: SqliteDialectConfig['database'];

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#database = config.database;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    if (!databases.has(connection) && typeof this.#database !== 'function') {
      databases.set(connection, this.#database);
    }
    return connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
