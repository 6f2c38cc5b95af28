// The databases every integration test runs on: SQLite always, PostgreSQL when TICKETNET_TEST_PG
// holds a URL. On PostgreSQL each test run (mocha process) works in a database of its own, created
// on the server the URL names and dropped when the run ends (postgres-run.ts); each opened handle
// gets a fresh schema inside it, dropped when the handle closes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../controller/db/database.js';
import { runDatabaseUrl } from './postgres-run.js';

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

const postgres: TestDatabase = {
  name: 'postgres',
  async open() {
    const runUrl = await runDatabaseUrl(pgUrl!);
    // Only this run reads its database, so a schema per handle is isolation enough.
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const handle = await openDatabase(runUrl, { schema, poolSize: 5 });
    const sep = runUrl.includes('?') ? '&' : '?';
    return {
      ...handle,
      url: `${runUrl}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
      openAnother: () => openDatabase(runUrl, { schema, poolSize: 5 }),
      async close() {
        await handle.close();
        // Kysely's introspection lists the tables of every schema: dropped schemas keep it short.
        const client = new pg.Client({ connectionString: runUrl });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      },
    };
  },
};

export const TEST_DATABASES: TestDatabase[] = pgUrl ? [sqlite, postgres] : [sqlite];

/** Declares the same suite once per test database (`this` is the suite, as in `describe`). */
export function forEachDatabase(title: string, suite: (this: Mocha.Suite, db: TestDatabase) => void): void {
  for (const db of TEST_DATABASES)
    describe(`${title} [${db.name}]`, function () {
      suite.call(this, db);
    });
}
