// Every difference between SQLite and PostgreSQL that a query may need lives here as a flag,
// so modules never branch on the dialect name.

export interface DialectCapabilities {
  readonly dialect: 'sqlite' | 'postgres';
  /** `SELECT … FOR UPDATE` locks rows (PostgreSQL); SQLite serialises writers instead. */
  readonly rowLocks: boolean;
  /** Several connections may run transactions concurrently (pool) or only one at a time. */
  readonly concurrentTransactions: boolean;
  /** LISTEN/NOTIFY is available to fan events out between controller instances. */
  readonly listenNotify: boolean;
  /** Largest number of bound parameters one statement may carry. */
  readonly maxBindParameters: number;
  /** The planner needs assumed statistics for tables it has none for (planner-statistics.ts). */
  readonly seedsPlannerStatistics: boolean;
}

export const SQLITE_CAPABILITIES: DialectCapabilities = {
  dialect: 'sqlite',
  rowLocks: false,
  concurrentTransactions: false,
  listenNotify: false,
  maxBindParameters: 32_766,
  seedsPlannerStatistics: true,
};

export const POSTGRES_CAPABILITIES: DialectCapabilities = {
  dialect: 'postgres',
  rowLocks: true,
  concurrentTransactions: true,
  listenNotify: true,
  maxBindParameters: 65_535,
  // PostgreSQL's autovacuum analyses new and changed tables itself.
  seedsPlannerStatistics: false,
};
