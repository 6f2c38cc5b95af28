// Command deadlines with clocks that disagree: a controller a day ahead of the agent's machine and
// one a day behind (a router without NTP starts at a default date), with the real agent runtime
// driving a RouterOS simulator over real sockets. The agent counts each command's time to live from
// receipt on its own monotonic clock, so neither end's clock is compared with the other's.
import { expect } from 'chai';
import { ManualClock } from '../../../controller/core/clock.js';
import { forEachDatabase } from '../../support/databases.js';
import { startLiveStack, type LiveStack } from '../../support/live-site.js';
import { eventually } from './hub-fixture.js';

const DAY = 86_400_000;

forEachDatabase('command deadlines with wrong clocks (controller, agent runtime, simulator)', (database) => {
  let stack: LiveStack;
  afterEach(async () => stack.close());

  for (const [name, offset] of [
    ['a day ahead', DAY],
    ['a day behind', -DAY],
  ] as const) {
    it(`runs commands from a controller whose clock is ${name}`, async function () {
      this.timeout(30_000);
      stack = await startLiveStack(database, { clock: new ManualClock(new Date(Date.now() + offset)) });
      const { t, client } = stack;
      const { allocationId } = await stack.addSite({ serial: 'D4CA6D112233' });
      const path = `/api/v1/clients/allocations/${allocationId}`;

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
