// The bandwidth programme on simulated RouterOS 6.49 and 7.19 routers with the real agent runtime
// over real sockets (test/support/live-site.ts): a scheduled day's queues, limits and priorities as
// the router holds them, a hand-deleted queue and a hand-edited limit restored while unmarked
// objects stay as they were, a no-change pass that writes nothing, the router unreachable (left as
// it is), a disable while away and the sweep when it returns, and the WAN usage store fed by the
// agent's network-quality points.
import { expect } from 'chai';
import { forEachDatabase } from '../support/databases.js';
import { eventually } from '../integration/hub/hub-fixture.js';
import { startLiveStack, type LiveStack } from '../support/live-site.js';
import { addInterfaceTraffic } from '../routeros-sim/qos-menus.js';
import type { RouterSim } from '../routeros-sim/router-sim.js';

const rows = (sim: RouterSim, path: string): Record<string, string>[] =>
  sim.state
    .table(path)
    .list()
    .map((r) => ({ id: String(r.id), ...r.props }));
const marked = (sim: RouterSim, path: string) =>
  rows(sim, path).filter(
    (r) => (r.comment ?? '').startsWith('ticketnet:bw:') || (r.name ?? '').startsWith('tn-bw-'),
  );
const MENUS = [
  '/queue/tree',
  '/queue/type',
  '/ip/firewall/mangle',
  '/ip/firewall/filter',
  '/ip/firewall/address-list',
];

forEachDatabase('bandwidth on simulated routers', (database) => {
  let stack: LiveStack;
  afterEach(async () => stack?.close());

  for (const [version, serial] of [
    ['6.49.10', 'B0E2E0649'],
    ['7.19', 'B0E2E0719'],
  ] as const) {
    it(`holds a scheduled day's queues on RouterOS ${version}, undoes hand edits, sweeps after a disable while away`, async function () {
      this.timeout(60_000);
      stack = await startLiveStack(database);
      const services = stack.t.controller.services;
      await services.licences.grant(stack.client.id, 'MONITORING_MONTHLY', null);
      const admin = await stack.t.admin();
      const reconcile = async () => {
        const res = await stack.t.request('POST', '/api/v1/radius/admin/bandwidth/reconcile', {
          token: admin.token,
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body as Record<string, number>;
      };
      const site = await stack.addSite({ serial, version });
      const { sim } = site;
      const nas = await stack.radius('POST', '/nas', { router_serial: serial, apply_mode: 'app_apply' });
      expect(nas.status, JSON.stringify(nas.body)).to.equal(201);
      const nasId = nas.body.nas.id as string;

      // Objects of the site's own, unmarked: they must come out of every pass as they went in.
      sim.state.table('/queue/tree').insert({
        name: 'own-queue',
        parent: 'global',
        'max-limit': '5000000',
        'packet-mark': 'own',
        queue: 'default',
        priority: '4',
        'limit-at': '0',
        disabled: 'false',
        invalid: 'false',
      });
      sim.state.table('/ip/firewall/mangle').insert({
        chain: 'prerouting',
        action: 'mark-packet',
        'new-packet-mark': 'own',
        passthrough: 'true',
        disabled: 'false',
      });
      sim.state
        .table('/ip/firewall/address-list')
        .insert({ list: 'own-list', address: '8.8.8.8', disabled: 'false', dynamic: 'false' });
      const unmarkedBefore = MENUS.map((m) =>
        rows(sim, m).filter((r) => !marked(sim, m).some((x) => x.id === r.id)),
      );

      const today = new Date().getUTCDay();
      const put = await stack.radius('PUT', '/bandwidth/program', {
        nas_id: nasId,
        limit_mbps: 10,
        essential_share: 0.25,
        essential_classes: ['dns'],
        mode: 'SCHEDULED',
        schedule_weekdays: [today],
      });
      expect(put.status, JSON.stringify(put.body)).to.equal(200);
      expect(await reconcile()).to.deep.include({ traites: 1, poses: 1, bascules: 1, injoignables: 0 });

      const tree = Object.fromEntries(marked(sim, '/queue/tree').map((q) => [q.name, q]));
      expect(tree['tn-bw-down']).to.include({ parent: 'global', 'max-limit': '10000000' });
      expect(tree['tn-bw-up']).to.include({ parent: 'global', 'max-limit': '10000000' });
      expect(tree['tn-bw-ess-down']).to.include({
        parent: 'tn-bw-down',
        priority: '1',
        'limit-at': '2500000',
        'max-limit': '10000000',
        queue: 'tn-bw-pcq-down',
        'packet-mark': 'tn-bw-ess-down',
      });
      expect(tree['tn-bw-rest-down']).to.include({
        parent: 'tn-bw-down',
        priority: '8',
        'limit-at': '0',
        'max-limit': '10000000',
        queue: 'tn-bw-pcq-down',
      });
      const types = Object.fromEntries(marked(sim, '/queue/type').map((q) => [q.name, q]));
      expect(types['tn-bw-pcq-down']).to.include({ kind: 'pcq', 'pcq-classifier': 'dst-address' });
      expect(types['tn-bw-pcq-up']).to.include({ kind: 'pcq', 'pcq-classifier': 'src-address' });
      const lists = marked(sim, '/ip/firewall/address-list');
      expect(lists.map((l) => l.address)).to.include.members(['8.8.8.8/32', '1.1.1.1/32']);
      expect(new Set(lists.map((l) => l.list))).to.deep.equal(new Set(['tn-bw-c-dns']));
      const mangle = marked(sim, '/ip/firewall/mangle');
      expect(mangle.map((r) => r['new-packet-mark'])).to.deep.equal([
        'tn-bw-rest-down',
        'tn-bw-rest-up',
        'tn-bw-ess-up',
        'tn-bw-ess-down',
      ]);
      expect(mangle[1]).to.include({
        chain: 'forward',
        action: 'mark-packet',
        'out-interface': 'ether1',
        passthrough: 'true',
      });
      // FastTrack would bypass the queues: our accept sits right before the site's FastTrack rule.
      const filter = rows(sim, '/ip/firewall/filter');
      const hold = filter.findIndex((r) => r.comment === 'ticketnet:bw:f.all');
      const fasttrack = filter.findIndex((r) => r.action === 'fasttrack-connection');
      expect(hold).to.be.greaterThan(-1);
      expect(hold).to.equal(fasttrack - 1);

      // Nothing changed: nothing written, and only the digest read was sent.
      const sent = async () =>
        (
          await stack.t.db.db
            .selectFrom('agent_commands')
            .select('name')
            .where('allocation_id', '=', site.allocationId)
            .where('name', 'like', 'bandwidth.%')
            .orderBy('created_at')
            .orderBy('id') // time-ordered ids: the later of two in one millisecond sorts last
            .execute()
        ).map((r) => r.name);
      expect(await reconcile()).to.deep.include({ traites: 1, poses: 0, conformes: 1 });
      expect(await sent()).to.deep.equal(['bandwidth.apply', 'bandwidth.digest']);

      // Hand edits: a queue deleted, a limit raised; both undone, the rest untouched.
      const rest = sim.state.table('/queue/tree').findBy('name', 'tn-bw-rest-down')!;
      sim.state.table('/queue/tree').delete(rest);
      const ess = sim.state.table('/queue/tree').findBy('name', 'tn-bw-ess-up')!;
      sim.state.table('/queue/tree').update(ess, { 'max-limit': '50000000' });
      expect(await reconcile()).to.deep.include({ poses: 1 });
      expect((await sent()).slice(-2)).to.deep.equal(['bandwidth.digest', 'bandwidth.apply']);
      expect(sim.state.table('/queue/tree').findBy('name', 'tn-bw-rest-down')?.props).to.include({
        'max-limit': '10000000',
        priority: '8',
      });
      expect(sim.state.table('/queue/tree').findBy('name', 'tn-bw-ess-up')?.props['max-limit']).to.equal(
        '10000000',
      );
      const unmarkedAfter = MENUS.map((m) =>
        rows(sim, m).filter((r) => !marked(sim, m).some((x) => x.id === r.id)),
      );
      expect(unmarkedAfter).to.deep.equal(unmarkedBefore);

      const state = (await stack.radius('GET', '/bandwidth/program')).body.programmes[0];
      expect(state).to.include({ etat_souhaite: 'ON', etat_constate: 'ON', en_erreur: false });

      // The router goes away: the pass leaves it as it is; a disable is recorded, not cleaned.
      sim.faults.set({ refuseConnections: 'reset', resetConnection: true });
      expect(await reconcile()).to.deep.include({ injoignables: 1 });
      const off = await stack.radius('DELETE', `/bandwidth/program/${nasId}`);
      expect(off.status).to.equal(200);
      expect(off.body).to.deep.include({ disabled: true, nettoye: false });
      expect(marked(sim, '/queue/tree')).to.have.length(6);

      // Back: the sweep removes every marked object; FastTrack is the site's own again.
      sim.faults.clear();
      expect(await reconcile()).to.deep.include({ traites: 1, injoignables: 0 });
      for (const m of MENUS) expect(marked(sim, m), m).to.deep.equal([]);
      expect(MENUS.map((m) => rows(sim, m))).to.deep.equal(unmarkedBefore);
      const after = (await stack.radius('GET', '/bandwidth/program')).body.programmes[0];
      expect(after).to.include({ enabled: false, etat_constate: 'OFF', en_erreur: false });

      // The agent's network-quality point carries the WAN counters, its telemetry the router's zone.
      addInterfaceTraffic(sim.state, 'ether1', 7_000_000, 1_000_000);
      await site.agent.reports.reportTelemetry();
      await site.agent.qoe.collect();
      const seen = await eventually(
        async () => (await stack.radius('GET', '/bandwidth/program')).body.programmes[0],
        (p) => p.consommation.dernierReleve !== null,
        10_000,
      );
      expect(seen.timezone).to.equal('Africa/Dakar');
      // A first reading only sets the baseline: nothing counted yet, but measured (0, not null).
      expect(seen.consommation).to.deep.include({ octetsJour: 0, octetsMois: 0 });
    });
  }
});
