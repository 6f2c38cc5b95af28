// Every difference between SQLite and PostgreSQL that a query may need lives here as a flag,
// so modules never branch on the dialect name.

export interface DialectCapabilities {
  /** Tables live in a named schema (`current_schema()`), which the migrator must be told. */
  readonly namedSchemas: boolean;
  /** `SELECT … FOR UPDATE` locks rows (PostgreSQL); SQLite serialises writers instead. */
  readonly rowLocks: boolean;
  /** Several connections may run transactions concurrently (pool) or only one at a time. */
  readonly concurrentTransactions: boolean;
  /** Largest number of bound parameters one statement may carry. */
  readonly maxBindParameters: number;
  /** The planner needs assumed statistics for tables it has none for (planner-statistics.ts). */
  readonly seedsPlannerStatistics: boolean;
  /** A statement answering the names (column `name`) of this database's tables, the engine's own left out. */
  readonly listTablesSql: string;
  /** Prefix that makes the database describe a statement's plan instead of running it. */
  readonly explainPrefix: string;
  /** Column of the rows an explained statement answers, one plan line per row. */
  readonly planLineColumn: string;
  /**
   * Plan lines state the keys an index search binds (`(client_id=? AND code=?)`) and whether the
   * index covers the query; otherwise they name the index used.
   */
  readonly planShowsSearchKeys: boolean;
  /**
   * A statement answering the names (column `name`) of the indexes a table's schema declares, the
   * table's name its one parameter; the indexes the engine makes for keys and constraints left out.
   */
  readonly listIndexesSql: string;
  /**
   * A statement that prices sequential scans out for the rest of the transaction, so that a plan
   * names an index whenever the query lets the planner use one (PostgreSQL scans a small table
   * whatever its indexes); null where the planner already takes a usable index.
   */
  readonly priceOutScansSql: string | null;
  /**
   * A committed transaction can announce itself to every connection of the database (`pg_notify`
   * delivered to LISTENers at commit), so several controller instances can share events; without
   * it only the one instance holding the database is told (in process).
   */
  readonly notifiesAcrossInstances: boolean;
  /**
   * A `WITH` clause may hold INSERT/UPDATE … RETURNING feeding the main statement, so several
   * writes go in one statement (one round trip, row locks held only while it runs).
   */
  readonly writableCtes: boolean;
  /**
   * A transaction can lock a name no row stands for (`pg_advisory_xact_lock`), released at its end.
   * SQLite needs none: its write transactions already run one at a time.
   */
  readonly namedLocks: boolean;
  /**
   * Statements run in this process and return synchronously (SQLite through better-sqlite3): a
   * group of them can run in one turn, with no promise or driver round per statement
   * (statement-sessions.ts). Otherwise each statement is a round trip to the server.
   */
  readonly synchronousStatements: boolean;
}

export const SQLITE_CAPABILITIES: DialectCapabilities = {
  namedSchemas: false,
  listTablesSql: "select name from sqlite_master where type = 'table' and substr(name, 1, 7) <> 'sqlite_'",
  rowLocks: false,
  concurrentTransactions: false,
  maxBindParameters: 32_766,
  seedsPlannerStatistics: true,
  explainPrefix: 'explain query plan',
  planLineColumn: 'detail',
  planShowsSearchKeys: true,
  // The engine's own indexes (keys, UNIQUE constraints) have no SQL.
  listIndexesSql: "select name from sqlite_master where type = 'index' and tbl_name = ? and sql is not null",
  priceOutScansSql: null,
  notifiesAcrossInstances: false,
  writableCtes: false,
  namedLocks: false,
  synchronousStatements: true,
};

export const POSTGRES_CAPABILITIES: DialectCapabilities = {
  namedSchemas: true,
  listTablesSql:
    "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
  rowLocks: true,
  concurrentTransactions: true,
  maxBindParameters: 65_535,
  // PostgreSQL's autovacuum analyses new and changed tables itself.
  seedsPlannerStatistics: false,
  explainPrefix: 'explain',
  planLineColumn: 'QUERY PLAN',
  planShowsSearchKeys: false,
  listIndexesSql:
    "select indexname as name from pg_indexes where schemaname = current_schema() and tablename = $1::text and indexname not in (select conname from pg_constraint where conrelid = to_regclass(current_schema() || '.' || $1::text))",
  priceOutScansSql: 'set local enable_seqscan = off',
  notifiesAcrossInstances: true,
  writableCtes: true,
  namedLocks: true,
  synchronousStatements: false,
};
