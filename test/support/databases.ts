// The databases every integration test runs on: SQLite always, PostgreSQL when TICKETNET_TEST_PG
// holds a URL (each opened handle gets a fresh schema, dropped when the handle closes).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../controller/db/database.js';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** Opens a fresh, empty database. With `shared`, a second handle onto the same one. */
  open(): Promise<TestDbHandle>;
}

export interface TestDbHandle extends DatabaseHandle {
  /** A TICKETNET_DB value pointing at the same database (for a second instance or process). */
  url: string;
  /** Another handle onto the same database (a second controller instance). */
  openAnother(): Promise<DatabaseHandle>;
}

const sqlite: TestDatabase = {
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'tn-test-'));
    const url = `sqlite:${join(dir, 'test.db')}`;
    const handle = await openDatabase(url);
    return {
      ...handle,
      url,
      openAnother: () => openDatabase(url),
      async close() {
        await handle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const pgUrl = process.env.TICKETNET_TEST_PG;

// Schemas are named t_<pid>_<unix seconds>_<random>; those older than an hour whose process is gone
// (it died without cleaning up) are dropped once per run, so they never pile up in the shared test
// database. The age check keeps a run in another PID namespace from losing its live schema.
let sweptStaleSchemas: Promise<void> | undefined;
async function dropStaleSchemas(): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "select nspname as name from pg_namespace where nspname ~ '^t_[0-9]+_[0-9]+_[0-9a-f]+$'",
    );
    const hourAgo = Date.now() / 1000 - 3600;
    for (const { name } of rows) {
      const [, pid, created] = name.split('_').map(Number);
      if (created! < hourAgo && pid !== process.pid && !isAlive(pid!)) {
        await client.query(`drop schema if exists ${name} cascade`);
      }
    }
  } finally {
    await client.end();
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

const postgres: TestDatabase = {
  name: 'postgres',
  async open() {
    await (sweptStaleSchemas ??= dropStaleSchemas());
    const schema = `t_${process.pid}_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
    const handle = await openDatabase(pgUrl!, { schema, poolSize: 5 });
    const sep = pgUrl!.includes('?') ? '&' : '?';
    return {
      ...handle,
      url: `${pgUrl}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
      openAnother: () => openDatabase(pgUrl!, { schema, poolSize: 5 }),
      async close() {
        await handle.close();
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      },
    };
  },
};

export const TEST_DATABASES: TestDatabase[] = pgUrl ? [sqlite, postgres] : [sqlite];

/** Declares the same suite once per test database. */
export function forEachDatabase(title: string, suite: (db: TestDatabase) => void): void {
  for (const db of TEST_DATABASES) describe(`${title} [${db.name}]`, () => suite(db));
}
