// Two controller instances on one PostgreSQL: publications from either reach the subscribers of
// both, each once and in offset order (stored offsets, NOTIFY with ids only).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Centrifuge } from 'centrifuge';
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

  it('delivers every publication once, in order, to subscribers of both instances; fifty claims through both win once', async function () {
    // Fifty accounts are registered (scrypt each): slow on a loaded machine.
    this.timeout(180_000);
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
});
