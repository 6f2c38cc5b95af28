// GET /clients/router/hotspot-profiles: force=true reads through the agent, else the last read;
// link down and timeouts answer as an enrolment does.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startShopTest, type ShopTest } from './shop-fixture.js';

const LIVE = '/api/v1/clients/router/hotspot-profiles';

forEachDatabase('shop live hotspot profiles', (database) => {
  let s: ShopTest;
  // A short bridge wait, so the timeout case ends quickly.
  beforeEach(async () => (s = await startShopTest(database, { nasBridgeTimeoutMs: 400 })));
  afterEach(async () => s.t.close());

  it('reads through the agent with force=true, answers the last read otherwise, keeps the profiles in the ticket store', async () => {
    const site = await s.shopSite('SHOP-A');
    let res = await s.api('GET', LIVE);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      success: true,
      result: [],
      read_at: null,
      allocation_id: site.allocationId,
    });

    res = await s.api('GET', `${LIVE}?force=true`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.result).to.deep.equal([
      { name: '1h', 'rate-limit': '2M/4M', 'shared-users': '1', 'session-timeout': '1h' },
      { name: '7d', 'rate-limit': '5M/10M' },
    ]);
    const store = await s.radius('GET', '/profiles');
    expect(
      store.body.data.map((p: { name: string; rate_limit: string }) => [p.name, p.rate_limit]),
    ).to.deep.equal([
      ['1h', '2M/4M'],
      ['7d', '5M/10M'],
    ]);

    // The router changes; without force the last read is answered, with force the new one.
    s.routerProfiles = [{ name: '30m', rate_limit: '1M/1M' }];
    res = await s.api('GET', `${LIVE}?force=false&allocation_id=${site.allocationId}`);
    expect(res.body.result.map((p: { name: string }) => p.name)).to.deep.equal(['1h', '7d']);
    res = await s.api('GET', `${LIVE}?force=true&allocation_id=${site.allocationId}`);
    expect(res.body.result).to.deep.equal([{ name: '30m', 'rate-limit': '1M/1M' }]);
  });

  it('answers VPN_TUNNEL_NOT_CONNECTED with no router or its link down, 503 on a timeout, 502 on a refusal', async () => {
    let res = await s.api('GET', `${LIVE}?force=true`);
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('VPN_TUNNEL_NOT_CONNECTED');
    expect(res.body.details).to.include({ reason: 'ROUTER_NOT_LINKED', tunnel_status: 'DISCONNECTED' });

    const site = await s.shopSite('SHOP-A');
    s.routerProfiles = null;
    res = await s.api('GET', `${LIVE}?force=true`);
    expect(res.status).to.equal(502);
    expect(res.body.error.code).to.equal('ROUTER_COMMAND_FAILED');

    site.agent.withholdResults = true;
    res = await s.api('GET', `${LIVE}?force=true`);
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('RADIUS_BRIDGE_UNAVAILABLE');
    site.agent.withholdResults = false;

    await s.disconnect(site);
    res = await s.api('GET', `${LIVE}?force=true`);
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('VPN_TUNNEL_NOT_CONNECTED');
    expect(res.body.details).to.include({ allocation_id: site.allocationId, reason: 'TUNNEL_DISCONNECTED' });
    // Nothing queued for a router whose link is down.
    const queued = await s.t.db.db
      .selectFrom('agent_commands')
      .select('id')
      .where('name', '=', 'hotspot.profiles.list')
      .execute();
    expect(queued).to.have.length(2);
  });

  it("refuses bad queries and another tenant's allocation", async () => {
    const site = await s.shopSite('SHOP-A');
    for (const query of ['force=yes', 'force=1', 'allocation_id=nope', 'allocation_id=']) {
      const res = await s.api('GET', `${LIVE}?${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    }
    const other = await s.licensedClient();
    const res = await s.api(
      'GET',
      `${LIVE}?force=true&allocation_id=${site.allocationId}`,
      undefined,
      other.token,
    );
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('ALLOCATION_NOT_FOUND');
    const mine = await s.api('GET', LIVE, undefined, other.token);
    expect(mine.body).to.deep.include({ result: [], allocation_id: null });
  });
});
