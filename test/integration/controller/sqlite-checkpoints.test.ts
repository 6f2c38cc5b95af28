import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../../controller/db/database.js';
import { waitFor } from '../../support/wait-for.js';
import {
  BACKSTOP_PAGES,
  CHECKPOINT_INTERVAL_MS,
  startCheckpointer,
} from '../../../controller/db/sqlite-checkpointer.js';

// WAL checkpoints run in a worker thread, never inside a COMMIT of the main connection.
describe('SQLite checkpoints (worker thread)', () => {
  let dir: string;
  let handle: DatabaseHandle | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tn-ckpt-'));
  });
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the database file off the main connection', async () => {
    const file = join(dir, 'c.db');
    handle = await openDatabase(`sqlite:${file}`);
    const { db } = handle;
    const setting = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(setting.rows[0]!.wal_autocheckpoint).to.equal(BACKSTOP_PAGES);
    expect(
      (await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous,
    ).to.equal(
      1, // NORMAL
    );
    await sql`create table blobs (b blob)`.execute(db);
    const before = statSync(file).size;
    // ~8 MiB in one transaction (2,000 pages), far below the main connection's own threshold:
    // the database file grows only when the worker copies the pages in.
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 2000; i++) await sql`insert into blobs values (randomblob(4000))`.execute(trx);
    });
    await waitFor(() => statSync(file).size - before >= 8_000_000, {
      timeoutMs: 20 * CHECKPOINT_INTERVAL_MS,
      everyMs: 20,
      what: 'the worker to copy the pages into the database file',
    });
    const count = await sql<{ n: number }>`select count(*) as n from blobs`.execute(db);
    expect(count.rows[0]!.n).to.equal(2000);
  });

  it('closes the worker before the main connection, which then removes the WAL', async () => {
    const file = join(dir, 'c.db');
    handle = await openDatabase(`sqlite:${file}`);
    await sql`create table t (x integer)`.execute(handle.db);
    await sql`insert into t values (1)`.execute(handle.db);
    expect(existsSync(`${file}-wal`)).to.equal(true);
    await handle.close();
    handle = undefined;
    expect(existsSync(`${file}-wal`)).to.equal(false);
    const again = await openDatabase(`sqlite:${file}`);
    try {
      expect((await sql<{ x: number }>`select x from t`.execute(again.db)).rows).to.deep.equal([{ x: 1 }]);
    } finally {
      await again.close();
    }
  });

  it('reports a worker that cannot checkpoint, once', async () => {
    const failures: string[] = [];
    const checkpointer = startCheckpointer(join(dir, 'missing.db'), (m) => failures.push(m));
    await waitFor(() => failures.length > 0, { everyMs: 20, what: 'the worker to report' }).finally(() =>
      checkpointer.stop(),
    );
    expect(failures).to.have.length(1);
    expect(failures[0]).to.match(/does not exist|unable to open|ended/i);
  });

  it('needs no worker for an in-memory database', async () => {
    handle = await openDatabase('sqlite::memory:');
    await sql`create table t (x integer)`.execute(handle.db);
    expect((await sql<{ n: number }>`select count(*) as n from t`.execute(handle.db)).rows[0]!.n).to.equal(0);
  });
});
