// The agent's bandwidth watch against the simulator on RouterOS 6.49 and 7.19: after an apply, a
// digest with nothing changed reads only the default route; a hand edit (in the router, or over
// another API session), a listen the router refuses, a reopened session or a kept digest past its
// age all lead to a full read, and the digest answered is always the one a full read gives.
import { expect } from 'chai';
import sinon from 'sinon';
import { applyBandwidth } from '../../../agent/commands/bandwidth-apply.js';
import { bandwidthDigest, readBandwidthObjects } from '../../../agent/commands/bandwidth-digest.js';
import { BandwidthWatch } from '../../../agent/commands/bandwidth-watch.js';
import type { BandwidthParams } from '../../../agent/commands/bandwidth-plan.js';
import type { RouterConnection } from '../../../agent/routeros/router-connection.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { connectTo, startSim } from './support/sim.js';
import { delay, oneTurn, watchProcessFailures } from './support/helpers.js';

const PARAMS: BandwidthParams = {
  cap: { limit_kbps: 10_000, essential_share: 0.25 },
  classes: [{ id: 'dns', ranges: ['8.8.8.8/32', '1.1.1.1/32'] }],
  users: [],
};

for (const version of ['6.49.10', '7.19']) {
  describe(`bandwidth watch against the simulator, RouterOS ${version}`, () => {
    let sim: RouterSim;
    let conn: RouterConnection;
    let other: RouterConnection;
    let failures: ReturnType<typeof watchProcessFailures>;
    let clock: number;
    let watch: BandwidthWatch;
    let printed: string[];

    beforeEach(async () => {
      failures = watchProcessFailures();
      sim = await startSim({ version });
      conn = connectTo(sim);
      other = connectTo(sim);
      clock = 1_000_000;
      watch = new BandwidthWatch(() => clock, 60_000);
      printed = [];
      const print = conn.print.bind(conn);
      sinon.stub(conn, 'print').callsFake((path, options) => {
        printed.push(path);
        return print(path, options);
      });
    });

    afterEach(async () => {
      watch.stop();
      await conn.close();
      await other.close();
      await sim.stop();
      await oneTurn();
      failures.assertNone();
      failures.restore();
    });

    /** The digest a plain full read gives now, on a session of its own. */
    const truth = async () => bandwidthDigest(await readBandwidthObjects(other, {}));
    const applied = async () => {
      const out = await applyBandwidth(conn, PARAMS, { watch });
      expect(out.added).to.be.greaterThan(0);
      printed = [];
      return out.digest;
    };

    it('answers the kept digest after one read of the default route when nothing changed', async () => {
      const digest = await applied();
      expect(digest).to.equal(await truth());
      for (let i = 0; i < 3; i++) {
        expect((await watch.digest(conn, {})).digest).to.equal(digest);
      }
      expect(printed).to.deep.equal(['/ip/route', '/ip/route', '/ip/route']);
      // An apply with nothing to change writes nothing and keeps the digest too.
      const again = await applyBandwidth(conn, PARAMS, { watch });
      expect(again).to.include({ added: 0, updated: 0, removed: 0, digest });
    });

    it('sees a queue deleted and a limit edited in the router, and an edit over another session', async () => {
      const digest = await applied();
      const tree = sim.state.table('/queue/tree');
      tree.delete(tree.findBy('name', 'tn-bw-rest-down')!);
      const deleted = await watch.digest(conn, {});
      expect(deleted.digest).to.not.equal(digest);
      expect(deleted.digest).to.equal(await truth());

      await applyBandwidth(conn, PARAMS, { watch });
      const ess = tree.findBy('name', 'tn-bw-ess-up')!;
      await other.set('/queue/tree', `*${ess.id.toString(16).toUpperCase()}`, { 'max-limit': '50M' });
      const edited = await watch.digest(conn, {});
      expect(edited.digest).to.equal(await truth());
      expect(edited.digest).to.not.equal(digest);

      // Restored (the queue re-added sits last: the digest follows the router's order).
      const restored = (await applyBandwidth(conn, PARAMS, { watch })).digest;
      expect(restored).to.equal(await truth());
      expect((await watch.digest(conn, {})).digest).to.equal(restored);
      // An address-list entry disabled by hand is seen too.
      const list = sim.state.table('/ip/firewall/address-list');
      list.update(list.findBy('address', '8.8.8.8/32')!, { disabled: 'true' });
      expect((await watch.digest(conn, {})).digest)
        .to.equal(await truth())
        .and.not.equal(restored);
    });

    it('reads everything when the router refuses a listen, when the session was reopened, and past the age', async () => {
      sim.faults.set({ failCommand: { path: '/queue/tree/listen', message: 'no such command' } });
      const first = await applied();
      await oneTurn();
      await watch.digest(conn, {});
      expect(printed).to.include('/queue/tree');
      const tree = sim.state.table('/queue/tree');
      tree.delete(tree.findBy('name', 'tn-bw-up')!);
      expect((await watch.digest(conn, {})).digest)
        .to.equal(await truth())
        .and.not.equal(first);

      sim.faults.clear();
      await conn.close();
      const digest = (await applyBandwidth(conn, PARAMS, { watch })).digest;
      expect(digest).to.equal(await truth());
      printed = [];
      expect((await watch.digest(conn, {})).digest).to.equal(digest);
      expect(printed).to.deep.equal(['/ip/route']);

      // The session drops: its listens end with it, and the next digest reads everything.
      await conn.close();
      printed = [];
      expect((await watch.digest(conn, {})).digest).to.equal(digest);
      expect(printed).to.include('/queue/tree');

      printed = [];
      clock += 60_000;
      expect((await watch.digest(conn, {})).digest).to.equal(digest);
      expect(printed).to.include('/ip/firewall/address-list');
    });
  });
}

describe('RouterConnection.listen against the simulator', () => {
  it('has no silence deadline, hears each change, and ends with the session', async () => {
    const failures = watchProcessFailures();
    const sim = await startSim({ version: '7.19' });
    const conn = connectTo(sim, { timeoutMs: 100 });
    try {
      let heard = 0;
      const { session, ended } = await conn.listen('/ip/firewall/address-list', () => heard++);
      expect(conn.session).to.equal(session);
      // Silent for three times the call deadline: the link stays up, nothing is dropped.
      await delay(300);
      expect(conn.isConnected).to.equal(true);
      await conn.add('/ip/firewall/address-list', { list: 'l', address: '10.9.9.9' });
      const entry = sim.state.table('/ip/firewall/address-list').findBy('address', '10.9.9.9')!;
      sim.state.table('/ip/firewall/address-list').delete(entry);
      await conn.print('/system/identity');
      expect(heard).to.equal(2);
      await conn.close();
      expect(await ended).to.have.property('code', 'ROUTER_UNREACHABLE');
      expect(conn.session).to.equal(undefined);
    } finally {
      await conn.close();
      await sim.stop();
      await oneTurn();
      failures.assertNone();
      failures.restore();
    }
  });
});
