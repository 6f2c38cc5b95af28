// The command queue's group commit: writes share transactions, but a group is bounded, so a burst
// never makes its first write wait for the last, and writes about commands already out go before
// new commands without stopping them. Run with the sessions of each database (synchronous
// statements on SQLite) and, on SQLite, with Kysely's too.
import BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { sql } from 'kysely';
import { pino } from 'pino';
import { PreparedStatement, slot } from '../../../controller/db/prepared-statement.js';
import {
  KyselySessions,
  statementSessions,
  then,
  type StatementSessions,
} from '../../../controller/db/statement-sessions.js';
import { GroupCommit, type Write } from '../../../controller/hub/group-commit.js';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';

forEachDatabase('command queue group commit', (database) => {
  const kinds: { name: string; sessions: (h: TestDbHandle) => StatementSessions }[] = [
    { name: "the database's sessions", sessions: (h) => statementSessions(h.db, h.caps) },
  ];
  if (database.name === 'sqlite') kinds.push({ name: 'Kysely', sessions: (h) => new KyselySessions(h.db) });

  for (const kind of kinds) {
    describe(`with ${kind.name}`, () => {
      let handle: TestDbHandle;
      let sessions: StatementSessions;
      let selectOne: PreparedStatement<{ one: number }>;
      beforeEach(async () => {
        handle = await database.open();
        sessions = kind.sessions(handle);
        await sql`create table t (k text primary key, v integer not null)`.execute(handle.db);
        selectOne = new PreparedStatement(sql<{ one: number }>`select 1 as one`.compile(handle.db));
      });
      afterEach(async () => handle.close());
      const logger = pino({ level: 'silent' });

      const insert = (h: TestDbHandle) =>
        new PreparedStatement(
          h.db
            .insertInto('t' as never)
            .values({ k: slot(0), v: slot<number>(1) } as never)
            .compile(),
        );
      const rowsOf = async (h: TestDbHandle) =>
        (await sql<{ k: string; v: number }>`select k, v from t order by k`.execute(h.db)).rows;

      /** A write that logs when it runs and when its commit answers it. */
      const traced = (log: string[], name: string) => ({
        write: ((run) =>
          then(run.rows(selectOne, []), () => {
            log.push(`run ${name}`);
            return name;
          })) as Write<string>,
        done: (value: string) => log.push(`done ${value}`),
      });

      /** Asks `count` traced writes named `<name><i>` of `commits`, into `all`. */
      const ask = (
        commits: GroupCommit,
        log: string[],
        all: Promise<unknown>[],
        name: string,
        count: number,
        options: { fresh?: boolean } = {},
      ) => {
        for (let i = 0; i < count; i++) {
          const w = traced(log, `${name}${i}`);
          all.push(commits.run(w.write, options).then(w.done));
        }
      };

      it('commits a burst in bounded groups: the first write is answered before the last one runs', async () => {
        const commits = new GroupCommit(sessions, logger, { maxWrites: 16 });
        const log: string[] = [];
        const all: Promise<unknown>[] = [];
        ask(commits, log, all, 'fresh', 100, { fresh: true });
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
        const commits = new GroupCommit(sessions, logger, { maxWrites: 16 });
        const log: string[] = [];
        const all: Promise<unknown>[] = [];
        ask(commits, log, all, 'fresh', 100, { fresh: true });
        ask(commits, log, all, 'result', 40);
        await Promise.all(all);
        // Asked after a hundred new commands, the results are all stored before most of them.
        const lastResult = log.indexOf('done result39');
        expect(lastResult).to.be.lessThan(log.indexOf('run fresh50'));
        // Yet new commands were not stopped meanwhile: a quarter of each group.
        const freshBefore = log.slice(0, lastResult).filter((e) => e.startsWith('run fresh')).length;
        expect(freshBefore).to.be.at.least(10);
      });

      it('fails only the failing write of a group', async () => {
        const commits = new GroupCommit(sessions, logger);
        const missing = new PreparedStatement(sql`select * from no_such_table`.compile(handle.db));
        const ok = commits.run((run) => then(run.rows(selectOne, []), (rows) => rows[0]));
        const bad = commits
          .run((run) => run.rows(missing, []))
          .then(
            () => undefined,
            (err: Error) => err,
          );
        const atomic = commits.run((run) => then(run.rows(selectOne, []), (rows) => rows[0]), {
          atomic: true,
        });
        expect(await ok).to.deep.equal({ one: 1 });
        expect(await atomic).to.deep.equal({ one: 1 });
        expect((await bad)?.message).to.match(/no_such_table|does not exist/);
      });

      it("keeps the other writes of a group whose write broke a constraint, and none of the broken one's", async () => {
        const commits = new GroupCommit(sessions, logger);
        const put = insert(handle);
        const writes = [
          commits.run((run) => run.changes(put, ['a', 1])),
          // Two statements that must commit together; the second breaks the primary key.
          commits.run((run) => then(run.changes(put, ['b', 2]), () => run.changes(put, ['a', 3])), {
            atomic: true,
          }),
          commits.run((run) => run.changes(put, ['c', 4])),
        ];
        const outcomes = await Promise.allSettled(writes);
        expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
        expect(await rowsOf(handle)).to.deep.equal([
          { k: 'a', v: 1 },
          { k: 'c', v: 4 },
        ]);
      });

      it('answers a write only once its group has committed', async () => {
        const commits = new GroupCommit(sessions, logger);
        const put = insert(handle);
        // Another connection reads the row the moment its writer is answered: on SQLite at once (in
        // the same turn, before anything else can commit), on PostgreSQL by the next statement.
        const other = database.name === 'sqlite' ? undefined : await handle.openAnother();
        const reader =
          database.name === 'sqlite'
            ? new BetterSqlite3(handle.url.slice('sqlite:'.length), { readonly: true })
            : undefined;
        const count = (k: string): Promise<number> | number =>
          reader
            ? (reader.prepare('select count(*) as n from t where k = ?').get(k) as { n: number }).n
            : sql<{ n: number }>`select count(*) as n from t where k = ${k}`
                .execute(other!.db)
                .then((r) => Number(r.rows[0]!.n));
        try {
          const seen = await Promise.all(
            ['x', 'y', 'z'].map((k, i) =>
              commits.run((run) => run.changes(put, [k, i])).then(() => count(k)),
            ),
          );
          expect(seen).to.deep.equal([1, 1, 1]);
        } finally {
          reader?.close();
          await other?.close();
        }
      });
    });
  }
});
