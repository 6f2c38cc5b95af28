// Kysely's SQLite driver opens transactions with a plain (deferred) BEGIN. Two controller
// processes on one file would then both read, both try to write, and one would fail with
// SQLITE_BUSY instead of waiting. BEGIN IMMEDIATE takes the write lock up front so the
// busy_timeout makes the second writer wait.
//
// Kysely's SQLite adapter also runs migrations outside any transaction and without a lock (it
// assumes one process). SQLite's DDL is transactional, so the adapter below says so: each
// migration run is then one BEGIN IMMEDIATE transaction, and a second controller starting on the
// same file waits for the first and finds the migrations done.
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
} from 'kysely';
import type { SqliteDialectConfig } from 'kysely';

class ImmediateSqliteDriver extends SqliteDriver {
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
