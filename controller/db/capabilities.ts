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
  notifiesAcrossInstances: true,
  writableCtes: true,
  namedLocks: true,
  synchronousStatements: false,
};
