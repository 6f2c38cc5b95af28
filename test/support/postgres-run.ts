// One PostgreSQL database per mocha process (the main one, or each parallel worker): created on the
// server TICKETNET_TEST_PG names (through that URL's database) the first time a test needs
// PostgreSQL, dropped by the global teardown when the run ends. Processes never share a database, so two suites at once on one server cannot see each
// other's schemas (Kysely's introspection and migrator read every schema of their database).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const STALE_AFTER_S = 3600;
// Names PostgreSQL accepts unquoted and keeps whole (63 bytes at most).
const BASE_MAX = 30;

let run: Promise<string> | undefined;

/** The URL of this run's own database, created (and stale ones swept) on the first call. */
export async function runDatabaseUrl(serverUrl: string): Promise<string> {
  run ??= createRunDatabase(serverUrl);
  return run;
}

/**
 * The tag every database of this run ends with: the main process sets it before mocha's parallel
 * workers start, so each worker's database carries it and the main process can drop them all.
 */
export function runTag(): string {
  process.env.TICKETNET_TEST_RUN_TAG ??= randomBytes(4).toString('hex');
  return process.env.TICKETNET_TEST_RUN_TAG;
}

/** Drops every database of this run (one per mocha process); their connections are ended by the server. */
export async function dropRunDatabases(serverUrl: string): Promise<void> {
  const base = baseName(serverUrl);
  const tag = runTag();
  await withClient(serverUrl, async (c) => {
    const { rows } = await c.query<{ name: string }>('select datname as name from pg_database');
    for (const { name } of rows) {
      if (runDatabasePattern(base).test(name) && name.endsWith(`_${tag}`)) {
        await c.query(`drop database if exists ${name} with (force)`);
      }
    }
  });
}

/** `<base>_run_<pid>_<unix seconds>_<run tag>`: the base is the URL's own database name. */
export function runDatabasePattern(base: string): RegExp {
  return new RegExp(`^${base}_run_([0-9]+)_([0-9]+)_[0-9a-f]+$`);
}

export function baseName(serverUrl: string): string {
  const u = new URL(serverUrl);
  const db = decodeURIComponent(u.pathname.slice(1)) || decodeURIComponent(u.username) || 'postgres';
  return db
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, BASE_MAX);
}

async function createRunDatabase(serverUrl: string): Promise<string> {
  const base = baseName(serverUrl);
  const name = `${base}_run_${process.pid}_${Math.floor(Date.now() / 1000)}_${runTag()}`;
  await withClient(serverUrl, async (c) => {
    await dropStaleRunDatabases(c, base);
    await c.query(`create database ${name}`);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

// Run databases older than an hour whose process is gone (it died before its root hook ran) are
// dropped, so they never pile up on the server. The age check keeps a live run in another PID
// namespace from losing its database.
export async function dropStaleRunDatabases(client: pg.Client, base: string): Promise<void> {
  const pattern = runDatabasePattern(base);
  const { rows } = await client.query<{ name: string }>('select datname as name from pg_database');
  const hourAgo = Date.now() / 1000 - STALE_AFTER_S;
  for (const { name } of rows) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (Number(m[2]) < hourAgo && pid !== process.pid && !isAlive(pid)) {
      await client.query(`drop database if exists ${name} with (force)`);
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function withClient<T>(url: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
