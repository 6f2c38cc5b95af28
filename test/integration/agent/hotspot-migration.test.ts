// The migration and return commands through the whole agent (signed link, journal, executor,
// routerCatalogue) against the RouterOS simulator: results as the controller receives them.
import { expect } from 'chai';
import { FakeHub } from '../../support/fake-hub.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { afterTest, cleanUp, startSim, startTestAgent, waitUntil } from './agent-harness.js';

interface ExportedUser {
  name: string;
  profile: string;
  disabled: boolean;
  uptime_seconds?: number;
}

for (const version of ['6.49', '7.19']) {
  describe(`agent migration and return commands, RouterOS ${version}`, () => {
    let hub: FakeHub;
    let sim: RouterSim;

    beforeEach(async () => {
      hub = await new FakeHub().start();
      afterTest(() => hub.stop());
      sim = await startSim({ version, seed: { hotspotUsers: 300 } });
      const agent = await startTestAgent({ hub, sim, enrol: true });
      await waitUntil(() => agent.link.state === 'ready', 5000, 'link ready');
    });
    afterEach(cleanUp);

    async function run(name: string, params: Record<string, unknown> = {}) {
      const id = hub.sendCommand({ name, params });
      await waitUntil(() => hub.results.some((r) => r.id === id), 10_000, `result of ${name}`);
      return hub.results.find((r) => r.id === id)!;
    }

    const users = () => sim.state.table('/ip/hotspot/user');

    it('inventories, removes between two counts, and restores in batches of 40', async () => {
      const exported = await run('hotspot.users.export');
      expect(exported.status).to.equal('DONE');
      const backup = (exported.output as { users: ExportedUser[] }).users;
      expect(backup.some((u) => u.uptime_seconds !== undefined)).to.equal(true);

      const names = await run('hotspot.users.names');
      expect(names.status).to.equal('DONE');
      expect(names.output).to.deep.equal({ names: backup.map((u) => u.name), count: 300 });
      expect(await run('hotspot.users.count')).to.include({ status: 'DONE' });
      expect((await run('hotspot.users.count')).output).to.deep.equal({ count: 301 });

      const batch = [...backup.slice(0, 60).map((u) => u.name), 'default-trial', 'gone'];
      const removed = await run('hotspot.users.remove', { names: batch });
      expect(removed.status).to.equal('DONE');
      expect(removed.output).to.deep.equal({
        count_before: 301,
        count_after: 241,
        requested: 60,
        absent: 1,
        spared: 1,
      });
      // the same work again after a lost link comes with a new command id: no harm
      const again = await run('hotspot.users.remove', { names: batch });
      expect(again.output).to.deep.equal({
        count_before: 241,
        count_after: 241,
        requested: 0,
        absent: 61,
        spared: 1,
      });
      expect(users().findBy('name', 'default-trial')).to.not.equal(undefined);

      const restoredProfiles = await run('hotspot.profiles.restore', {
        profiles: [{ name: '1h-500F', rate_limit: '1M/2M' }, { name: 'returned' }],
      });
      expect(restoredProfiles.output).to.deep.equal({ added: 1, updated: 1 });

      for (const [i, users40] of [backup.slice(0, 40), backup.slice(40, 80)].entries()) {
        const restored = await run('hotspot.users.restore', { users: users40 });
        expect(restored.status, JSON.stringify(restored.fault)).to.equal('DONE');
        expect(restored.output).to.deep.equal(
          i === 0 ? { added: 40, updated: 0 } : { added: 20, updated: 20 },
        );
      }
      expect((await run('hotspot.users.count')).output).to.deep.equal({ count: 301 });
    });

    it('answers FAILED BAD_PARAMS for 41 users and ROUTER_TRAP when an add traps', async () => {
      const backup = ((await run('hotspot.users.export')).output as { users: ExportedUser[] }).users;
      const tooMany = await run('hotspot.users.restore', { users: backup.slice(0, 41) });
      expect(tooMany.status).to.equal('FAILED');
      expect(tooMany.fault).to.include({ code: 'BAD_PARAMS', retryable: false });

      await run('hotspot.users.remove', { names: backup.slice(0, 40).map((u) => u.name) });
      sim.faults.set({
        failCommand: { path: '/ip/hotspot/user/add', message: 'failure: busy', afterCalls: 10 },
      });
      const failed = await run('hotspot.users.restore', { users: backup.slice(0, 40) });
      expect(failed.status).to.equal('FAILED');
      expect(failed.fault?.code).to.equal('ROUTER_TRAP');
      expect(users().size).to.equal(301 - 40 + 10);

      sim.faults.replace({ countImpossible: true });
      const count = await run('hotspot.users.count');
      expect(count.status).to.equal('FAILED');
      expect(count.fault?.code).to.equal('ROUTER_TRAP');
      const removal = await run('hotspot.users.remove', { names: [backup[50]!.name] });
      expect(removal.status).to.equal('DONE');
      expect(removal.output).to.include({ count_before: null, count_after: null, requested: 0 });
      expect(users().findBy('name', backup[50]!.name)).to.not.equal(undefined);
    });
  });
}
