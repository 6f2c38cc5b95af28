// Targeted users on simulated RouterOS 6.49 and 7.19 routers with the real agent: the router's
// open hotspot sessions give each user's volume; a user over the individual quota gets one queue
// per direction over their 16 largest addresses (17 seen), under parents without a global cap.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../support/databases.js';
import { startLiveStack, type LiveStack } from '../support/live-site.js';

const GB = 1e9;

forEachDatabase('bandwidth targeted users on simulated routers', (database) => {
  let stack: LiveStack;
  afterEach(async () => stack?.close());

  for (const [version, serial] of [
    ['6.49.10', 'B0E2B0649'],
    ['7.19', 'B0E2B0719'],
  ] as const) {
    it(`slows one user over all their addresses on RouterOS ${version}`, async function () {
      this.timeout(60_000);
      stack = await startLiveStack(database);
      await stack.t.controller.services.licences.grant(stack.client.id, 'MONITORING_MONTHLY', null);
      const admin = await stack.t.admin();
      const reconcile = async () =>
        (
          await stack.t.request('POST', '/api/v1/radius/admin/bandwidth/reconcile', {
            token: admin.token,
          })
        ).body as Record<string, number>;
      const { sim } = await stack.addSite({ serial, version });
      const nas = await stack.radius('POST', '/nas', { router_serial: serial, apply_mode: 'app_apply' });
      const nasId = nas.body.nas.id as string;
      const active = sim.state.table('/ip/hotspot/active');
      const session = (user: string, address: string, bytes: number) =>
        active.insert({ user, address, 'bytes-in': String(bytes), 'bytes-out': '0', uptime: '1h' });
      // big: 17 devices of 0.1 GB (the smallest is left out of the queue); ali: 0.5 GB, under the quota.
      for (let i = 1; i <= 17; i++) session('big', `10.5.51.${i}`, i === 17 ? 0.05 * GB : 0.1 * GB);
      session('ali', '10.5.50.2', 0.5 * GB);

      const today = new Date().getUTCDay();
      const put = await stack.radius('PUT', '/bandwidth/program', {
        nas_id: nasId,
        limit_mbps: 10,
        mode: 'SCHEDULED',
        schedule_weekdays: [(today + 3) % 7],
        user_daily_quota_gb: 1,
        user_limit_mbps: 2,
      });
      expect(put.status, JSON.stringify(put.body)).to.equal(200);
      expect(await reconcile()).to.deep.include({ traites: 1, poses: 1, usagers_brides: 1, injoignables: 0 });

      const key = createHash('sha256').update('big').digest('hex').slice(0, 12);
      const list = `tn-bw-u-${key}`;
      const addresses = sim.state
        .table('/ip/firewall/address-list')
        .list()
        .filter((r) => r.props.list === list)
        .map((r) => r.props.address);
      expect(addresses).to.have.length(16);
      expect(addresses).to.not.include('10.5.51.17');
      const tree = sim.state.table('/queue/tree');
      expect(tree.findBy('name', `${list}-down`)?.props).to.include({
        parent: 'tn-bw-down',
        'max-limit': '2000000',
        'packet-mark': `${list}-down`,
      });
      // No global cap today: the parents pass everything.
      expect(tree.findBy('name', 'tn-bw-down')?.props).to.include({ parent: 'global', 'max-limit': '0' });
      expect(tree.findBy('name', 'tn-bw-ess-down')).to.equal(undefined);
      const marks = sim.state
        .table('/ip/firewall/mangle')
        .list()
        .filter((r) => r.props['src-address-list'] === list || r.props['dst-address-list'] === list);
      expect(marks).to.have.length(2);

      const state = (await stack.radius('GET', '/bandwidth/program')).body;
      expect(state.programmes[0]).to.include({ etat_constate: 'OFF', usagers_brides: 1 });
      expect(state.usagers_brides).to.have.length(1);
      expect(state.usagers_brides[0]).to.include({
        username: 'big',
        limit_mbps: 2,
        observed_bytes: 1.65 * GB,
      });
      expect(state.usagers_brides[0].framed_ips).to.have.length(16);
      const entry = (await stack.radius('GET', '/bandwidth/activity')).body.activites[0];
      expect(entry).to.include({ type: 'USER_THROTTLED' });
      expect(entry.detail).to.deep.include({
        username: 'big',
        observe_gb: 1.65,
        reason: { sources: ['ROUTEUR'] },
      });

      // Nothing changed: the next pass writes nothing.
      expect(await reconcile()).to.deep.include({ poses: 0, conformes: 1, usagers_brides: 0 });
    });
  }
});
