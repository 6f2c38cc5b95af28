// The command queue's group commit: writes share transactions, but a group is bounded, so a burst
// never makes its first write wait for the last, and writes about commands already out go before
// new commands without stopping them.
import { expect } from 'chai';
import { sql } from 'kysely';
import { pino } from 'pino';
import { GroupCommit } from '../../../controller/hub/group-commit.js';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';

forEachDatabase('command queue group commit', (database) => {
  let handle: TestDbHandle;
  beforeEach(async () => (handle = await database.open()));
  afterEach(async () => handle.close());
  const logger = pino({ level: 'silent' });

  /** A write that logs when it runs and when its commit answers it. */
  const traced = (log: string[], name: string) => ({
    write: async (db: typeof handle.db) => {
      log.push(`run ${name}`);
      await sql`select 1`.execute(db);
      return name;
    },
    done: (value: string) => log.push(`done ${value}`),
  });

  it('commits a burst in bounded groups: the first write is answered before the last one runs', async () => {
    const commits = new GroupCommit(handle.db, logger, { maxWrites: 16 });
    const log: string[] = [];
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++) {
      const w = traced(log, `fresh${i}`);
      all.push(commits.run(w.write, { fresh: true }).then(w.done));
    }
    await Promise.all(all);
    expect(log.indexOf('done fresh0')).to.be.lessThan(log.indexOf('run fresh99'));
    // No group took more than 16 writes: between two answers at most 16 writes ran.
    let ranSinceAnswer = 0;
    for (const e of log) {
      ranSinceAnswer = e.startsWith('run') ? ranSinceAnswer + 1 : 0;
      expect(ranSinceAnswer).to.be.at.most(16);
    }
    // Each answered once, in the order asked.
    expect(log.filter((e) => e.startsWith('done'))).to.deep.equal(
      Array.from({ length: 100 }, (_, i) => `done fresh${i}`),
    );
  });

  it('runs the writes of commands already out before queued new commands, which keep a share', async () => {
    const commits = new GroupCommit(handle.db, logger, { maxWrites: 16 });
    const log: string[] = [];
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++) {
      const w = traced(log, `fresh${i}`);
      all.push(commits.run(w.write, { fresh: true }).then(w.done));
    }
    for (let i = 0; i < 40; i++) {
      const w = traced(log, `result${i}`);
      all.push(commits.run(w.write).then(w.done));
    }
    await Promise.all(all);
    // Asked after a hundred new commands, the results are all stored before most of them.
    const lastResult = log.indexOf('done result39');
    expect(lastResult).to.be.lessThan(log.indexOf('run fresh50'));
    // Yet new commands were not stopped meanwhile: a quarter of each group.
    const freshBefore = log.slice(0, lastResult).filter((e) => e.startsWith('run fresh')).length;
    expect(freshBefore).to.be.at.least(10);
  });

  it('fails only the failing write of a group', async () => {
    const commits = new GroupCommit(handle.db, logger);
    const ok = commits.run(async (db) => (await sql<{ one: number }>`select 1 as one`.execute(db)).rows[0]);
    const bad = commits
      .run((db) => sql`select * from no_such_table`.execute(db))
      .then(
        () => undefined,
        (err: Error) => err,
      );
    const atomic = commits.run(
      async (db) => (await sql<{ two: number }>`select 2 as two`.execute(db)).rows[0],
      {
        atomic: true,
      },
    );
    expect(await ok).to.deep.equal({ one: 1 });
    expect(await atomic).to.deep.equal({ two: 2 });
    expect((await bad)?.message).to.match(/no_such_table|does not exist/);
  });
});
