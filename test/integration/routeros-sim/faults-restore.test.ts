// What the agent's migration and return commands rely on in the simulator: `count-only` answered
// as `!done =ret=<n>`, removal of a comma list of ids, usage counters on seeded hotspot users,
// and the `stallAddsAfter` fault (adds acknowledged with a new id, nothing stored).
import { expect } from 'chai';
import type { RouterOSAPI } from 'node-routeros';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { RawClient, connectApi, startSim } from './sim-helpers.js';

for (const version of ['6.49', '7.19']) {
  describe(`routeros-sim hotspot users for migration and return, RouterOS ${version}`, () => {
    let sim: RouterSim;
    let api: RouterOSAPI;
    beforeEach(async () => {
      sim = await startSim({ version, seed: { hotspotUsers: 60, salesScripts: 0 } });
      api = await connectApi(sim);
    });
    afterEach(async () => {
      await api.close().catch(() => undefined);
      await sim.stop();
    });

    const users = () => sim.state.table('/ip/hotspot/user');

    it('answers count-only with !done =ret=<n>, default-trial included', async () => {
      const raw = await RawClient.login(sim.port);
      const reply = await raw.command(['/ip/hotspot/user/print', '=count-only=', '.tag=c'], 'c');
      expect(reply).to.deep.equal([['!done', '.tag=c', '=ret=61']]);
      raw.close();
    });

    it('removes a comma list of ids given as .id or as numbers', async () => {
      const ids = users()
        .list()
        .filter((r) => r.props.default !== 'true')
        .map((r) => `*${r.id.toString(16).toUpperCase()}`);
      await api.write('/ip/hotspot/user/remove', [`=.id=${ids.slice(0, 3).join(',')}`]);
      await api.write('/ip/hotspot/user/remove', [`=numbers=${ids.slice(3, 5).join(',')}`]);
      expect(users().size).to.equal(61 - 5);
    });

    it('seeds usage counters: some vouchers were used (uptime, bytes in and out), others not', async () => {
      const rows = await api.write('/ip/hotspot/user/print', ['=.proplist=name,uptime,bytes-in,bytes-out']);
      const used = rows.filter((r) => r.uptime !== '0s');
      expect(used.length).to.be.within(5, 55);
      for (const r of used) expect(Number(r['bytes-in'])).to.be.greaterThan(0);
      expect(rows.filter((r) => r.uptime === '0s' && r['bytes-out'] === '0').length).to.be.greaterThan(0);
    });

    it('stallAddsAfter: adds are acknowledged with new ids but stop being stored', async () => {
      sim.faults.set({ stallAddsAfter: 2 });
      const before = users().size;
      const rets: string[] = [];
      for (const name of ['s1', 's2', 's3', 's4']) {
        const raw = await RawClient.login(sim.port);
        const reply = await raw.command(['/ip/hotspot/user/add', `=name=${name}`, '.tag=a'], 'a');
        raw.close();
        expect(reply).to.have.length(1);
        expect(reply[0]?.[0]).to.equal('!done');
        rets.push(reply[0]?.find((w) => w.startsWith('=ret=')) ?? '');
      }
      expect(new Set(rets).size, rets.join(' ')).to.equal(4);
      for (const ret of rets) expect(ret).to.match(/^=ret=\*[0-9A-F]+$/);
      expect(users().size).to.equal(before + 2);
      expect(users().findBy('name', 's2')).to.not.equal(undefined);
      expect(users().findBy('name', 's3')).to.equal(undefined);
      // a script's adds count and stall the same way
      sim.faults.set({ stallAddsAfter: 1 });
      const run = await sim.runScript('/ip hotspot user add name=t1\n/ip hotspot user add name=t2');
      expect(run.ok, run.error).to.equal(true);
      expect(users().findBy('name', 't1')).to.not.equal(undefined);
      expect(users().findBy('name', 't2')).to.equal(undefined);
      // other menus are not affected, and clearing the fault stores again
      await api.write('/ip/hotspot/user/profile/add', ['=name=p-stall']);
      expect(sim.state.table('/ip/hotspot/user/profile').findBy('name', 'p-stall')).to.not.equal(undefined);
      sim.faults.clear();
      await api.write('/ip/hotspot/user/add', ['=name=s5']);
      expect(users().findBy('name', 's5')).to.not.equal(undefined);
    });

    it('refuses an unknown fault name and accepts stallAddsAfter through replace', () => {
      expect(() => sim.faults.set({ stallAdds: 1 } as never)).to.throw('unknown fault "stallAdds"');
      sim.faults.replace({ stallAddsAfter: 0 });
      expect(sim.faults.active).to.deep.equal({ stallAddsAfter: 0 });
    });
  });
}
