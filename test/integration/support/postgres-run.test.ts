// Each test run works in a PostgreSQL database of its own, each handle in a schema of its own.
import { expect } from 'chai';
import { sql } from 'kysely';
import { openDatabase } from '../../../controller/db/database.js';
import { TEST_DATABASES } from '../../support/databases.js';
import {
  baseName,
  dropStaleRunDatabases,
  runDatabasePattern,
  withClient,
} from '../../support/postgres-run.js';

const pgUrl = process.env.TICKETNET_TEST_PG;
const postgres = TEST_DATABASES.find((d) => d.name === 'postgres');

function deadPid(): number {
  for (let pid = 4_000_000; ; pid++) {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
}

(postgres ? describe : describe.skip)('test databases on PostgreSQL', () => {
  const where = async (url: string) => {
    const h = await openDatabase(url);
    try {
      const { rows } = await sql<{ db: string; schema: string }>`
        select current_database() as db, current_schema() as schema`.execute(h.db);
      return rows[0]!;
    } finally {
      await h.close();
    }
  };

  it('opens every handle in this run’s own database, each in a schema of its own', async () => {
    const a = await postgres!.open();
    const b = await postgres!.open();
    try {
      const [ia, ib] = [await where(a.url), await where(b.url)];
      const base = baseName(pgUrl!);
      const m = runDatabasePattern(base).exec(ia.db);
      expect(m, ia.db).to.not.equal(null);
      expect(Number(m![1])).to.equal(process.pid);
      expect(ib.db).to.equal(ia.db);
      expect(ib.schema).to.not.equal(ia.schema);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('sweeps run databases of dead processes older than an hour, and only those', async () => {
    const base = baseName(pgUrl!);
    const pid = deadPid();
    const now = Math.floor(Date.now() / 1000);
    const stale = `${base}_run_${pid}_${now - 7200}_5eed0001`;
    const recent = `${base}_run_${pid}_${now - 60}_5eed0002`;
    const mine = `${base}_run_${process.pid}_${now - 7200}_5eed0003`;
    const names = [stale, recent, mine];
    await withClient(pgUrl!, async (c) => {
      for (const n of names) await c.query(`create database ${n}`);
      try {
        await dropStaleRunDatabases(c, base);
        const { rows } = await c.query<{ name: string }>(
          'select datname as name from pg_database where datname = any($1)',
          [names],
        );
        expect(rows.map((r) => r.name).sort()).to.deep.equal([mine, recent].sort());
      } finally {
        for (const n of names) await c.query(`drop database if exists ${n}`);
      }
    });
  });
});
