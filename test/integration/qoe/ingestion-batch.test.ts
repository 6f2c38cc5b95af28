// The batch path of telemetry ingestion: points arriving together (HTTP and agent link) are
// stored in one transaction, with the same answers, usage and replay rule as one at a time; a
// point that fails fails only its caller; two controllers count an interval once.
import { expect } from 'chai';
import { pino } from 'pino';
import sinon from 'sinon';
import { ManualClock } from '../../../controller/core/clock.js';
import { createController } from '../../../controller/controller.js';
import type { QoeService } from '../../../controller/modules/qoe/index.js';
import type { TelemetryBody } from '../../../controller/modules/qoe/schemas.js';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';
import { testConfig } from '../../support/test-controller.js';
import { startQoeTest, type QoeSite, type QoeTest } from './qoe-fixture.js';

const GB = 1e9;
const at = (hhmmss: string) => `2026-11-22T${hhmmss}Z`;

// The usage test's steps (telemetry.test.ts): every interval rule, a reset and an older point.
const STEPS: [string, number][] = [
  ['10:00:00', 100 * GB],
  ['10:00:14', 101 * GB],
  ['10:00:29', 103 * GB],
  ['10:15:29', 107 * GB],
  ['10:31:30', 115 * GB],
  ['10:32:30', 1 * GB],
  ['10:33:30', 17 * GB],
  ['10:33:00', 99 * GB],
  ['10:34:30', 18 * GB],
];

forEachDatabase('qoe ingestion in batches', (database) => {
  let t: QoeTest;
  let qoe: QoeService;
  beforeEach(async () => {
    t = await startQoeTest(database);
    qoe = t.t.controller.services.qoe;
    t.t.clock.set(new Date(at('11:00:00')));
  });
  afterEach(async () => {
    sinon.restore();
    await t?.t.close();
  });

  const body = (site: QoeSite, hms: string, total: number): TelemetryBody => ({
    nas_id: site.nasId,
    observed_at: at(hms),
    rtt_ms: 600,
    wan_rx_bytes: total,
    wan_tx_bytes: 0,
    top_consumers: [],
  });
  const hoursOf = (site: QoeSite) =>
    t.t.db.db
      .selectFrom('usage_hours')
      .select(['hour', 'local_day', 'bytes'])
      .where('allocation_id', '=', site.allocationId)
      .orderBy('hour')
      .execute();
  const routerOf = (site: QoeSite) =>
    t.t.db.db
      .selectFrom('usage_routers')
      .select(['last_at', 'last_rx_bytes', 'last_tx_bytes'])
      .where('allocation_id', '=', site.allocationId)
      .executeTakeFirst();
  const pointsOf = async (site: QoeSite) =>
    (
      await t.t.db.db
        .selectFrom('qoe_points')
        .select(['id', 'observed_at', 'rtt_ms'])
        .where('nas_id', '=', site.nasId)
        .orderBy('observed_at')
        .execute()
    ).map((p) => ({ ...p, rtt_ms: Number(p.rtt_ms) }));

  it('stores concurrent points of one NAS in one batch, in arrival order, as a serial run would', async () => {
    const batched = await t.qoeSite('QOE-BATCH');
    const serial = await t.qoeSite('QOE-SERIAL');
    const before = qoe.ingestion.stats.batches;
    const answers = await Promise.all(
      STEPS.map(([hms, total]) => qoe.telemetry(batched.bridgeToken, body(batched, hms, total))),
    );
    expect(qoe.ingestion.stats.batches - before).to.equal(1);
    for (const [hms, total] of STEPS) await qoe.telemetry(serial.bridgeToken, body(serial, hms, total));

    expect(answers.map((a) => a.event.observed_at)).to.deep.equal(
      STEPS.map(([hms]) => new Date(at(hms)).toISOString()),
    );
    const stored = await pointsOf(batched);
    expect(stored).to.have.length(STEPS.length);
    expect(new Set(answers.map((a) => a.event.id))).to.deep.equal(new Set(stored.map((p) => p.id)));
    // Same buckets, same last reading: the older point (10:33:00) is not the base.
    expect(await hoursOf(batched)).to.deep.equal(await hoursOf(serial));
    expect(await routerOf(batched)).to.deep.equal(await routerOf(serial));
    expect(await routerOf(batched)).to.deep.include({ last_at: at('10:34:30').replace('Z', '.000Z') });
    const usage = (await t.get('/usage')).body.nas as { nas_id: string; daily_gb: number }[];
    expect(usage.map((n) => n.daily_gb)).to.deep.equal([23, 23]);
  });

  it('stores a replay within one batch once, answers both with its event, and counts it once', async () => {
    const a = await t.qoeSite('QOE-REPLAY');
    await qoe.telemetry(a.bridgeToken, body(a, '10:00:00', 10 * GB));
    const before = qoe.ingestion.stats.batches;
    const [first, again, stale, staleAgain] = await Promise.all([
      qoe.telemetry(a.bridgeToken, body(a, '10:01:00', 12 * GB)),
      qoe.telemetry(a.bridgeToken, { ...body(a, '10:01:00', 12 * GB), rtt_ms: 900 }),
      // A replay of a point stored by an earlier batch, twice: its first event, nothing added.
      qoe.telemetry(a.bridgeToken, { ...body(a, '10:00:00', 10 * GB), rtt_ms: 901 }),
      qoe.recordAgentPoint(t.client.id, a.allocationId, { ...body(a, '10:00:00', 10 * GB), rtt_ms: 902 }),
    ]);
    expect(qoe.ingestion.stats.batches - before).to.equal(1);
    expect(again.event).to.deep.equal(first.event);
    expect(staleAgain).to.equal(true);
    const stored = await pointsOf(a);
    expect(stored.map((p) => p.rtt_ms)).to.deep.equal([600, 600]);
    expect(stale.event.id).to.equal(stored[0]!.id);
    expect(first.event.id).to.equal(stored[1]!.id);
    expect((await hoursOf(a)).map((h) => Number(h.bytes))).to.deep.equal([2 * GB]);
  });

  it('fails only the point that fails: the others of its batch are stored and answered', async () => {
    const good = await t.qoeSite('QOE-GOOD');
    const bad = await t.qoeSite('QOE-BAD');
    await qoe.telemetry(good.bridgeToken, body(good, '10:00:00', 1 * GB));
    await qoe.telemetry(bad.bridgeToken, body(bad, '10:00:00', 1 * GB));
    // The usage store refuses any reading of `bad`'s router (a database fault on its row).
    const usage = t.t.controller.services.usage;
    const ingestMany = usage.ingestManyWithRecent.bind(usage);
    sinon.stub(usage, 'ingestManyWithRecent').callsFake(async (trx, points, since) => {
      if (points.some((p) => p.allocationId === bad.allocationId)) throw new Error('disk I/O error');
      return ingestMany(trx, points, since);
    });
    const before = qoe.ingestion.stats.batches;
    const results = await Promise.allSettled([
      qoe.telemetry(good.bridgeToken, body(good, '10:01:00', 2 * GB)),
      qoe.telemetry(bad.bridgeToken, body(bad, '10:01:00', 2 * GB)),
      qoe.telemetry('qbt_wrong', body(good, '10:01:30', 2 * GB)),
      qoe.recordAgentPoint(t.client.id, good.allocationId, body(good, '10:02:00', 3 * GB)),
    ]);
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(((results[1] as PromiseRejectedResult).reason as Error).message).to.equal('disk I/O error');
    expect(((results[2] as PromiseRejectedResult).reason as { code: string }).code).to.equal(
      'QOE_BRIDGE_TOKEN_INVALID',
    );
    // The batch failed as a whole, then good's two points committed alone, bad's not at all.
    expect(qoe.ingestion.stats.batches - before).to.equal(2);
    expect((await pointsOf(good)).map((p) => p.observed_at)).to.deep.equal([
      '2026-11-22T10:00:00.000Z',
      '2026-11-22T10:01:00.000Z',
      '2026-11-22T10:02:00.000Z',
    ]);
    expect(await pointsOf(bad)).to.have.length(1);
    expect((await hoursOf(good)).map((h) => Number(h.bytes))).to.deep.equal([2 * GB]);
    expect(await hoursOf(bad)).to.deep.equal([]);
  });

  it("takes one router's batches in turn, and where transactions run side by side, another router's meanwhile", async () => {
    const a = await t.qoeSite('QOE-TURN-A');
    const b = await t.qoeSite('QOE-TURN-B');
    await qoe.telemetry(a.bridgeToken, body(a, '10:00:00', 10 * GB));
    await qoe.telemetry(b.bridgeToken, body(b, '10:00:00', 10 * GB));
    // The first batch below is held inside its transaction until released.
    const usage = t.t.controller.services.usage;
    const ingestMany = usage.ingestManyWithRecent.bind(usage);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const held = new Promise<void>((resolve) => (entered = resolve));
    const judged: string[] = [];
    sinon.stub(usage, 'ingestManyWithRecent').callsFake(async (trx, points, since) => {
      const name = (id: string) => (id === a.allocationId ? 'a' : 'b');
      judged.push(
        points.map((p) => `${name(p.allocationId)} ${p.at.toISOString().slice(11, 19)}`).join(', '),
      );
      if (judged.length === 1) {
        entered();
        await gate;
      }
      return ingestMany(trx, points, since);
    });
    const answered: string[] = [];
    const first = qoe.telemetry(a.bridgeToken, body(a, '10:01:00', 12 * GB));
    await held;
    // A counter reset after 10:01: judged before 10:01 it would leave 10:01 older than the base.
    const second = qoe
      .telemetry(a.bridgeToken, body(a, '10:02:00', 1 * GB))
      .then(() => void answered.push('a 10:02:00'));
    // The batch of `second` forms in the next turn; `other` comes after it, in a batch of its own.
    await new Promise((resolve) => setImmediate(resolve));
    const other = qoe
      .telemetry(b.bridgeToken, body(b, '10:01:00', 13 * GB))
      .then(() => void answered.push('b 10:01:00'));
    const sideBySide = t.t.db.caps.concurrentTransactions;
    // Another router's batch does not wait for the one held; the same router's does.
    if (sideBySide) await other;
    expect(answered).to.deep.equal(sideBySide ? ['b 10:01:00'] : []);
    release();
    await Promise.all([first, second, other]);
    expect(judged).to.deep.equal(
      sideBySide ? ['a 10:01:00', 'b 10:01:00', 'a 10:02:00'] : ['a 10:01:00', 'a 10:02:00, b 10:01:00'],
    );
    expect((await hoursOf(a)).map((h) => Number(h.bytes))).to.deep.equal([2 * GB]);
    expect(await routerOf(a)).to.deep.include({ last_at: at('10:02:00').replace('Z', '.000Z') });
    expect((await hoursOf(b)).map((h) => Number(h.bytes))).to.deep.equal([3 * GB]);
  });

  it('counts each interval once when two controllers take the same points at once', async () => {
    const a = await t.qoeSite('QOE-TWO');
    const second = await createController({
      config: testConfig({ instanceId: 'qoe-b' }),
      logger: pino({ level: 'silent' }),
      clock: new ManualClock(t.t.clock.now()),
      database: await (t.t.db as TestDbHandle).openAnother(),
    });
    try {
      const other = second.services.qoe;
      // Both instances receive every point (a bridge sending twice), each in batches of its own.
      await Promise.all([
        Promise.all(STEPS.map(([hms, total]) => qoe.telemetry(a.bridgeToken, body(a, hms, total)))),
        Promise.all(STEPS.map(([hms, total]) => other.telemetry(a.bridgeToken, body(a, hms, total)))),
      ]);
    } finally {
      await second.close();
    }
    expect(await pointsOf(a)).to.have.length(STEPS.length);
    const usage = (await t.get('/usage')).body.nas as { daily_gb: number }[];
    expect(usage.map((n) => n.daily_gb)).to.deep.equal([23]);
  });

  it('judges two points of one router taken by two controllers at once against each other, never both against the same base', async () => {
    const a = await t.qoeSite('QOE-RACE');
    await qoe.telemetry(a.bridgeToken, body(a, '10:00:00', 10 * GB));
    const second = await createController({
      config: testConfig({ instanceId: 'qoe-c' }),
      logger: pino({ level: 'silent' }),
      clock: new ManualClock(t.t.clock.now()),
      database: await (t.t.db as TestDbHandle).openAnother(),
    });
    try {
      await Promise.all([
        qoe.telemetry(a.bridgeToken, body(a, '10:01:00', 12 * GB)),
        second.services.qoe.telemetry(a.bridgeToken, body(a, '10:02:00', 14 * GB)),
      ]);
    } finally {
      await second.close();
    }
    // In either order 4 GB: +2 then +2, or +4 then an older point adding nothing; never 2 + 4.
    expect((await hoursOf(a)).map((h) => Number(h.bytes))).to.deep.equal([4 * GB]);
  });
});
