// Opens the database named by TICKETNET_DB (`sqlite:PATH` or `postgres://…`) behind Kysely.
// The same schema and queries run on both: timestamps are ISO text, booleans integers 0/1,
// JSON text and money integer XOF, so results have one shape whatever the dialect.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { ImmediateSqliteDialect } from './sqlite-immediate-dialect.js';
import {
  BACKSTOP_PAGES,
  SQLITE_DEFAULT_AUTOCHECKPOINT,
  startCheckpointer,
  WAL_SIZE_LIMIT_BYTES,
  type Checkpointer,
} from './sqlite-checkpointer.js';
import { POSTGRES_CAPABILITIES, SQLITE_CAPABILITIES, type DialectCapabilities } from './capabilities.js';
import type { Database } from './schema.js';
import { pgListen, type DbListen } from './db-listener.js';

// node-postgres returns int8 (COUNT, SUM, bigint money) as strings; every such value we store
// is far below 2^53, so numbers are safe and keep both dialects' results identical.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export type Db = Kysely<Database>;

// Rows ANALYZE reads per index at most: enough for good estimates, and it bounds the pause.
const ANALYSIS_ROW_LIMIT = 1000;
const OPTIMIZE_INTERVAL_MS = 60 * 60 * 1000;

export interface DatabaseHandle {
  db: Db;
  caps: DialectCapabilities;
  /** Where `caps.notifiesAcrossInstances`: LISTEN on a connection of its own (db-listener.ts). */
  listen?: DbListen;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL only: a schema to use (created if absent); tests use one fresh schema per run. */
  schema?: string;
  poolSize?: number;
}

export async function openDatabase(url: string, options: OpenOptions = {}): Promise<DatabaseHandle> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  return openPostgres(url, options);
}

function openSqlite(path: string): DatabaseHandle {
  const onDisk = path !== ':memory:' && path !== '';
  if (onDisk) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a commit is written to the WAL without an fsync; the WAL is fsynced at each
  // checkpoint. An application crash loses nothing committed; a power cut can lose the last
  // transactions since the last checkpoint, never corrupt the file.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('foreign_keys = ON');
  // A 64 MiB page cache and memory-mapped reads keep the ticket indexes (random codes, uuids) hot;
  // the default 2 MiB cache makes every large batch re-read index pages from disk.
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('mmap_size = 268435456');
  sqlite.pragma('temp_store = MEMORY');
  // Table statistics: without them SQLite picks poor indexes on large tables (a heartbeat update
  // scanning every link). `optimize` analyses only what needs it (a table never analysed, or one
  // that grew or shrank tenfold since), on a bounded sample, so it is cheap at open and every hour
  // on a long-running controller. Tables still empty get assumed ones (planner-statistics.ts).
  sqlite.pragma(`analysis_limit = ${ANALYSIS_ROW_LIMIT}`);
  sqlite.pragma('optimize = 0x10002');
  const optimizer = setInterval(() => {
    if (!sqlite.open || sqlite.inTransaction) return;
    try {
      sqlite.pragma('optimize');
    } catch (err) {
      // Statistics can wait for the next hour; the controller must not stop for them.
      process.emitWarning(`SQLite optimize failed: ${(err as Error).message}`);
    }
  }, OPTIMIZE_INTERVAL_MS).unref();
  // Checkpoints run in a worker thread, never inside a COMMIT (sqlite-checkpointer.ts).
  let checkpointer: Checkpointer | null = null;
  if (onDisk) {
    sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    const checkpointOnCommit = (): void => {
      try {
        if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
      } catch {
        setTimeout(checkpointOnCommit, 1000).unref(); // a query is being streamed: later
      }
    };
    checkpointer = startCheckpointer(path, (message) => {
      process.emitWarning(`SQLite checkpoint worker failed (${message}); checkpoints run on commit again`);
      checkpointOnCommit();
    });
  }
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: cachingStatements(sqlite) }),
  });
  return {
    db,
    caps: SQLITE_CAPABILITIES,
    async close() {
      clearInterval(optimizer);
      // The worker's connection first, so the main one closes last and removes the WAL.
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

// Kysely's SQLite driver prepares every statement on every run; on the RADIUS and batch paths
// preparing costs as much as executing. Statements are reused from a bounded cache instead (safe:
// Kysely gives the single connection to one query at a time).
const STATEMENT_CACHE_SIZE = 500;

function cachingStatements(sqlite: BetterSqlite3.Database) {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql: string): BetterSqlite3.Statement {
      let stmt = cache.get(sql);
      if (stmt) {
        cache.delete(sql); // re-insert: the Map's order is the recency order
      } else {
        stmt = sqlite.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, stmt);
      return stmt;
    },
    close(): void {
      cache.clear();
      sqlite.close();
    },
  };
}

async function openPostgres(url: string, options: OpenOptions): Promise<DatabaseHandle> {
  const { schema } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema))
    throw new Error(`bad schema name ${schema}`);
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // A dropped connection must not crash the controller; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const listen: DbListen = (channel, handlers) =>
    pgListen(
      { connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) },
      channel,
      handlers,
    );
  return { db, caps: POSTGRES_CAPABILITIES, listen, close: () => db.destroy() };
}
