// Two controller instances on one PostgreSQL: publications from either reach the subscribers of
// both, each once and in offset order (stored offsets; NOTIFY with ids only, the other instance
// reading the data back; a missed announcement is read too).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Centrifuge } from 'centrifuge';
import { sql } from 'kysely';
import { pino } from 'pino';
import { createController, type Controller } from '../../../controller/controller.js';
import { ManualClock } from '../../../controller/core/clock.js';
import { TEST_DATABASES, type TestDbHandle } from '../../support/databases.js';
import { START_TIME, TestController, testConfig } from '../../support/test-controller.js';
import { Hub } from '../support-hub/hub-fixture.js';
import { Collector, connect } from './realtime-fixture.js';

const postgres = TEST_DATABASES.find((d) => d.name === 'postgres');

(postgres ? describe : describe.skip)('realtime broker on two instances [postgres]', () => {
  let main: TestDbHandle;
  const controllers: Controller[] = [];
  const clients: Centrifuge[] = [];

  beforeEach(async () => {
    main = await postgres!.open();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    for (const c of controllers.splice(0)) await c.close();
    await main.close();
  });

  async function instance(id: string, dataDir: string) {
    const controller = await createController({
      config: testConfig({ dataDir, instanceId: id }),
      logger: pino({ level: 'silent' }),
      clock: new ManualClock(START_TIME),
      database: await main.openAnother(),
    });
    controllers.push(controller);
    const { port } = await controller.listen();
    return {
      t: new TestController(controller, controller.clock as ManualClock, main),
      url: `ws://127.0.0.1:${port}/realtime`,
    };
  }

  /** Two instances on one database, and a subscriber of `support:presence` on each. */
  async function twoInstancesSubscribed() {
    const dataDir = mkdtempSync(join(tmpdir(), 'tn-data-'));
    const a = await instance('instance-a', dataDir);
    const b = await instance('instance-b', dataDir);
    const hubA = await new Hub(a.t).init();
    const watcher = await hubA.expert();
    const subs: Collector[] = [];
    for (const url of [a.url, b.url]) {
      const out = await connect(url, watcher.token);
      clients.push(out.client);
      expect(out.connected).to.equal(true);
      subs.push(await new Collector(out.client, 'support:presence').subscribe());
    }
    return { a, b, hubA, subs };
  }

  it('delivers every publication once, in order, to subscribers of both instances; fifty claims through both win once', async function () {
    // Fifty accounts are registered (scrypt each): slow on a loaded machine.
    this.timeout(180_000);
    const { a, b, hubA, subs } = await twoInstancesSubscribed();
    // Publications from both instances at once, in bursts.
    const N = 40;
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        (i % 2 ? a : b).t.controller.services.realtime.publish('support:presence', { i }),
      ),
    );
    for (const s of subs) {
      await s.count(N);
      expect(s.offsets).to.deep.equal(Array.from({ length: N }, (_, i) => i + 1));
      expect(new Set(s.data.map((d) => d.i)).size).to.equal(N);
    }

    // A claim through either instance: one 200, and TICKET_CLAIMED reaches both sides once.
    const client = await a.t.account('client');
    const m = await hubA.mission(client.token);
    const techs = await Promise.all(Array.from({ length: 50 }, () => hubA.expert()));
    const answers = await Promise.all(
      techs.map((tech, i) =>
        (i % 2 ? a : b).t.request('POST', `/api/v1/support/tickets/${m}/claim`, { token: tech.token }),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).to.have.length(1);
    expect(answers.filter((r) => r.status === 409)).to.have.length(49);
    for (const s of subs) {
      await s.count(N + 1);
      expect(s.data.filter((d) => d.type === 'TICKET_CLAIMED')).to.have.length(1);
    }
    await new Promise((r) => setTimeout(r, 100));
    for (const s of subs) expect(s.data).to.have.length(N + 1);
  });

  it('stores a burst asked of one instance together, in the order asked; the other instance passes it on whole, in order, once', async function () {
    this.timeout(60_000);
    const { a, b, subs } = await twoInstancesSubscribed();
    const burst = (via: typeof a, from: number) =>
      Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          via.t.controller.services.realtime.publish('support:presence', { n: from + i }),
        ),
      );
    const first = await burst(a, 1);
    expect(first.map((s) => s.offset)).to.deep.equal(Array.from({ length: 10 }, (_, i) => i + 1));
    // Two bursts at once, one per instance: each keeps its order, the two take turns whole.
    const [fromA, fromB] = await Promise.all([burst(a, 11), burst(b, 21)]);
    for (const offsets of [fromA, fromB].map((r) => r.map((s) => s.offset)))
      expect(offsets).to.deep.equal(Array.from({ length: 10 }, (_, i) => offsets[0]! + i));
    for (const s of subs) {
      await s.count(30);
      expect(s.offsets).to.deep.equal(Array.from({ length: 30 }, (_, i) => i + 1));
      // Data in offset order: each instance's burst in the order it was asked.
      const byOffset = s.data.map((d) => d.n as number);
      expect(byOffset.slice(0, 10)).to.deep.equal(Array.from({ length: 10 }, (_, i) => i + 1));
      const a10 = byOffset.slice(10).filter((n) => n <= 20);
      const b10 = byOffset.slice(10).filter((n) => n > 20);
      expect(a10).to.deep.equal(Array.from({ length: 10 }, (_, i) => 11 + i));
      expect(b10).to.deep.equal(Array.from({ length: 10 }, (_, i) => 21 + i));
    }
    await new Promise((r) => setTimeout(r, 100));
    for (const s of subs) expect(s.data).to.have.length(30);
  });

  it('announces by ids only and keeps every subscriber gapless and in order across large publications and a missed announcement', async function () {
    this.timeout(60_000);
    const { a, b, subs } = await twoInstancesSubscribed();
    // What any LISTENer of the database hears: the offset and the channel, never the data.
    const heard: string[] = [];
    const listening = await main.listen!('realtime_publication', {
      onPayload: (p) => heard.push(p),
      onReconnect: () => undefined,
    });
    const publish = (via: typeof a, data: object) =>
      via.t.controller.services.realtime.publish('support:presence', data);
    // Larger than a NOTIFY payload may be: stored, read back by the other instance.
    const big = 'x'.repeat(9000);
    await Promise.all([
      publish(a, { n: 1 }),
      publish(b, { n: 2, big }),
      publish(a, { n: 3 }),
      publish(b, { n: 4, big }),
    ]);
    // Stored without any announcement (as if the listeners' connection had lost it): the next
    // announcement shows the gap and each instance reads what it lacks.
    await sql`with next as (
        update realtime_channels set top_offset = top_offset + 1 where name = 'support:presence'
        returning top_offset
      )
      insert into realtime_publications (channel, seq, data, created_at)
      select 'support:presence', top_offset, '{"n":5}', '2026-01-01T00:00:00.000Z' from next`.execute(
      main.db,
    );
    await publish(b, { n: 6 });
    await publish(a, { n: 7 });
    for (const s of subs) {
      await s.count(7);
      expect(s.offsets).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
      // Offsets follow storage order; each datum once.
      expect(new Set(s.data.map((d) => d.n)).size).to.equal(7);
      expect(s.data.filter((d) => d.big === big)).to.have.length(2);
    }
    await new Promise((r) => setTimeout(r, 100));
    for (const s of subs) expect(s.data).to.have.length(7);
    await listening.close();
    // Offset 5 was stored without an announcement.
    expect(heard).to.deep.equal([1, 2, 3, 4, 6, 7].map((seq) => `${seq} 16 support:presence`));
  });
});
