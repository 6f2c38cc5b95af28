// The shop's router sync with the real pieces over real sockets: the controller, RouterOS
// simulators (7.19 and 6.49) and the real agent runtime. The router's own profile menu is the truth.
import { expect } from 'chai';
import { parseRouterOsDuration } from '../../../agent/routeros/ros-values.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { forEachDatabase } from '../../support/databases.js';
import { startLiveStack, type LiveStack } from '../../support/live-site.js';

forEachDatabase(
  'shop router sync end to end (agent runtime, RouterOS 7.19 and 6.49 simulators)',
  (database) => {
    let stack: LiveStack;
    beforeEach(async () => (stack = await startLiveStack(database)));
    afterEach(async () => stack.close());

    const api = (method: string, path: string, body?: unknown) =>
      stack.t.request(method, path, { token: stack.client.token, ...(body !== undefined ? { body } : {}) });
    const routerTruth = (sim: RouterSim) =>
      sim.state
        .table('/ip/hotspot/user/profile')
        .list()
        .map((r) => r.props);

    it('reads each router live, keeps its profiles, and the job restocks the priced offer', async function () {
      this.timeout(60_000);
      const v7 = await stack.addSite({ serial: '5E0719AB', version: '7.19' });
      const v6 = await stack.addSite({ serial: '5E0649AB', version: '6.49' });
      for (const { sim } of [v7, v6]) {
        sim.state.table('/ip/hotspot/user/profile').insert({
          name: '2h-500',
          'rate-limit': '1M/2M',
          'session-timeout': '2h',
          'shared-users': '1',
          default: 'false',
        });
      }
      for (const site of [v7, v6]) {
        const res = await api(
          'GET',
          `/api/v1/clients/router/hotspot-profiles?force=true&allocation_id=${site.allocationId}`,
        );
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const truth = routerTruth(site.sim);
        expect(res.body.result.map((p: { name: string }) => p.name)).to.deep.equal(truth.map((p) => p.name));
        for (const p of res.body.result as Record<string, string>[]) {
          const row = truth.find((r) => r.name === p.name)!;
          expect(p['rate-limit'], p.name).to.equal(row['rate-limit'] || undefined);
          if (p['session-timeout']) {
            expect(parseRouterOsDuration(p['session-timeout'])).to.equal(
              parseRouterOsDuration(row['session-timeout']!),
            );
          }
        }
        const mine = res.body.result.find((p: { name: string }) => p.name === '2h-500');
        expect(mine).to.deep.equal({
          name: '2h-500',
          'rate-limit': '1M/2M',
          'shared-users': '1',
          'session-timeout': '2h',
        });
      }

      // A RADIUS router, a store, a price in the ticket store: the job makes the stock.
      const nas = await stack.radius('POST', '/nas', { router_serial: '5E0719AB' });
      expect(nas.status, JSON.stringify(nas.body)).to.equal(201);
      await api('PUT', '/api/v1/clients/store-config', {
        display_name: 'Cyber Medina',
        store_slug: 'cyber-medina',
      });
      expect((await stack.radius('PUT', '/profiles/2h-500', { price: 500 })).status).to.equal(200);
      const admin = await stack.t.admin();
      const job = await stack.t.request('POST', '/api/v1/admin/jobs/SHOP_ROUTER_SYNC/run', {
        token: admin.token,
      });
      expect(job.body.data.result, JSON.stringify(job.body)).to.include({ tenants: 1, read: 1, failed: 0 });
      const readiness = (await api('GET', '/api/v1/clients/store/ticketshop/readiness')).body.data;
      expect(readiness).to.deep.include({ state: 'READY', offers_count: 1, vouchers_available: 10 });
      expect(readiness.delivery.source).to.equal('STOCK');
      expect(readiness.router).to.include({
        allocation_id: v7.allocationId,
        serial: '5E0719AB',
        tunnel_status: 'CONNECTED',
      });
    });
  },
);
