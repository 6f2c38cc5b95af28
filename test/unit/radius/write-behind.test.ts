import { expect } from 'chai';
import { pino } from 'pino';
import sinon from 'sinon';
import type { Db } from '../../../controller/db/database.js';
import { WriteBehind, type Batch } from '../../../controller/radius/write-behind.js';
import type { SessionUpdate } from '../../../controller/radius/session-update.js';

const silent = pino({ level: 'silent' });

/** A database whose transactions just run the callback; `fail` makes the next commits throw. */
function fakeDb() {
  const state = { fail: 0, transactions: 0 };
  const db = {
    transaction: () => ({
      execute: async (fn: (trx: unknown) => Promise<void>) => {
        state.transactions++;
        await fn({});
        if (state.fail > 0) {
          state.fail--;
          throw new Error('disk full');
        }
      },
    }),
  } as unknown as Db;
  return { db, state };
}

const logRow = (username: string) => ({
  client_id: 'c',
  nas_id: 'n',
  username,
  result: 'ACCEPT' as const,
  reason: null,
  calling_station_id: null,
  at: '2026-11-21T08:00:00.000Z',
});

const update = (over: Partial<SessionUpdate>): SessionUpdate => ({
  clientId: 'c',
  nasId: 'n',
  acctSessionId: 'S1',
  username: 'u',
  status: 'Interim-Update',
  inputOctets: 0,
  inputGigawords: 0,
  outputOctets: 0,
  outputGigawords: 0,
  totalBytes: 0,
  sessionTime: 0,
  terminateCause: null,
  framedIp: null,
  callingStationId: null,
  at: '2026-11-21T08:00:00.000Z',
  startedAt: '2026-11-21T08:00:00.000Z',
  ...over,
});

describe('RADIUS write-behind (group commit)', () => {
  it('commits durable writes at the end of the I/O turn, all of that turn in one transaction', async () => {
    const { db, state } = fakeDb();
    const batches: Batch[] = [];
    const w = new WriteBehind(
      db,
      async (_trx, b) => void batches.push(b),
      { maxDelayMs: 1000, maxRows: 500 },
      silent,
    );
    w.log(logRow('a'));
    const done = Promise.all([
      w.firstUse({ clientId: 'c', code: 'a', nasId: 'n', at: 'x', expiresAt: null }),
      w.session(update({ totalBytes: 10 })),
      w.session(update({ totalBytes: 30, status: 'Stop' })),
      w.session(update({ totalBytes: 20 })),
    ]);
    await done;
    expect(state.transactions).to.equal(1);
    expect(batches[0]!.authLog).to.have.length(1);
    expect(batches[0]!.firstUse).to.have.length(1);
    const [merged] = [...batches[0]!.sessions.values()];
    expect(merged).to.include({ totalBytes: 30, status: 'Stop' });
  });

  it('writes log rows within the delay, or at once when enough are queued', async () => {
    const { db, state } = fakeDb();
    const rows: string[] = [];
    const w = new WriteBehind(
      db,
      async (_trx, b) => void rows.push(...b.authLog.map((r) => r.username)),
      { maxDelayMs: 30, maxRows: 3 },
      silent,
    );
    const clock = sinon.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'],
    });
    try {
      w.log(logRow('a'));
      await clock.tickAsync(29);
      expect(rows).to.deep.equal([]);
      await clock.tickAsync(1);
      expect(rows).to.deep.equal(['a']);
      // A full batch is written on the next turn of the event loop, not after the delay.
      for (const u of ['b', 'c', 'd']) w.log(logRow(u));
      await clock.tickAsync(0);
      expect(rows).to.deep.equal(['a', 'b', 'c', 'd']);
      expect(state.transactions).to.equal(2);
    } finally {
      clock.restore();
    }
  });

  it('rejects waiting requests when the commit fails, keeps the log rows for the next one, and flush gives up', async () => {
    const { db, state } = fakeDb();
    const committed: string[] = [];
    const w = new WriteBehind(
      db,
      async (_trx, b) => void (state.fail === 0 && committed.push(...b.authLog.map((r) => r.username))),
      { maxDelayMs: 10, maxRows: 500 },
      silent,
    );
    state.fail = 1;
    w.log(logRow('kept'));
    const err = await w
      .firstUse({ clientId: 'c', code: 'a', nasId: 'n', at: 'x', expiresAt: null })
      .catch((e: Error) => e);
    expect(err).to.be.instanceOf(Error);
    await w.flush();
    expect(committed).to.deep.equal(['kept']);

    state.fail = 100;
    w.log(logRow('lost'));
    await w.flush(); // returns although the database stays down
    expect(state.fail).to.be.above(90);
  });

  it('commits at once on commitSoon, without waiting for the next I/O turn', async () => {
    const { db, state } = fakeDb();
    const w = new WriteBehind(db, async () => undefined, { maxDelayMs: 1000, maxRows: 500 }, silent);
    let immediateRan = false;
    let committedFirst = false;
    setImmediate(() => (immediateRan = true));
    const done = Promise.all([
      w.firstUse({ clientId: 'c', code: 'a', nasId: 'n', at: 'x', expiresAt: null }),
      w.firstUse({ clientId: 'c', code: 'b', nasId: 'n', at: 'x', expiresAt: null }),
    ]).then(() => (committedFirst = !immediateRan));
    w.commitSoon();
    await done;
    expect(committedFirst, 'committed before the turn ended').to.equal(true);
    expect(state.transactions).to.equal(1);
    // Nothing durable queued: nothing to start.
    w.log(logRow('x'));
    w.commitSoon();
    await new Promise((r) => setImmediate(r));
    expect(state.transactions).to.equal(1);
  });
});
