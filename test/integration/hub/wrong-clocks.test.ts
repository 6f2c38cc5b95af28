// Command deadlines with clocks that disagree: a controller a day ahead of the agent's machine and
// one a day behind (a router without NTP starts at a default date), with the real agent runtime
// driving a RouterOS simulator over real sockets. The agent counts each command's time to live from
// receipt on its own monotonic clock, so neither end's clock is compared with the other's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { createController } from '../../../controller/controller.js';
import { ManualClock } from '../../../controller/core/clock.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import { forEachDatabase } from '../../support/databases.js';
import { startLoopbackAgent } from '../../support/loopback-agent.js';
import { TestController, testConfig } from '../../support/test-controller.js';
import { eventually } from './hub-fixture.js';

const DAY = 86_400_000;
const SIM_PASSWORD = 'sim-pass';

forEachDatabase('command deadlines with wrong clocks (controller, agent runtime, simulator)', (database) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
  });

  for (const [name, offset] of [
    ['a day ahead', DAY],
    ['a day behind', -DAY],
  ] as const) {
    it(`runs commands from a controller whose clock is ${name}`, async function () {
      this.timeout(30_000);
      const db = await database.open();
      const clock = new ManualClock(new Date(Date.now() + offset));
      const controller = await createController({
        config: testConfig(),
        logger: pino({ level: 'silent' }),
        clock,
        database: db,
      });
      const t = new TestController(controller, clock, db);
      cleanups.push(() => t.close());
      const { port } = await controller.listen();
      const client = await t.account('client');

      const sim = new RouterSim({ serial: 'D4CA6D112233', version: '7.19', password: SIM_PASSWORD });
      await sim.start();
      cleanups.push(() => sim.stop());
      const created = await t.request('POST', '/api/v1/clients/allocations', {
        token: client.token,
        body: {},
      });
      const { allocation, enrolment } = created.body.data;
      const stateDir = await mkdtemp(join(tmpdir(), 'tn-clocks-'));
      cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
      const agent = await startLoopbackAgent({
        stateDir,
        controllerUrl: `http://127.0.0.1:${port}`,
        enrolCode: enrolment.code,
        router: { port: sim.port, password: SIM_PASSWORD },
      });
      cleanups.push(() => agent.stop());
      const path = `/api/v1/clients/allocations/${allocation.id}`;
      await eventually(
        async () => (await t.request('GET', path, { token: client.token })).body.data,
        (a) => a.link_state === 'CONNECTED',
        15_000,
      );

      for (const command of ['router.facts', 'router.ping', 'hotspot.users.count']) {
        const queued = await t.request('POST', `${path}/commands`, {
          token: client.token,
          body: { name: command },
        });
        expect(queued.status, JSON.stringify(queued.body)).to.equal(202);
        const final = await eventually(
          async () =>
            (await t.request('GET', `${path}/commands/${queued.body.data.id}`, { token: client.token })).body
              .data,
          (c) => ['DONE', 'FAILED', 'EXPIRED'].includes(c.state),
          15_000,
        );
        expect(final.state, `${command}: ${JSON.stringify(final.fault)}`).to.equal('DONE');
      }
      expect((await t.request('GET', path, { token: client.token })).body.data.router.serial).to.equal(
        'D4CA6D112233',
      );
    });
  }
});
