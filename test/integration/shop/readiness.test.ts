// GET /clients/store/ticketshop/readiness: always 200; the seven checks in order; the state is the
// first failing one; the delivery source STOCK, RADIUS, DIRECT or NONE.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { priceProfile, startShopTest, type ShopTest } from './shop-fixture.js';

const ORDER = [
  'NO_LICENSE',
  'NO_STORE_PROFILE',
  'NO_SLUG',
  'NO_OFFERS',
  'ROUTER_NOT_LINKED',
  'NO_STOCK',
  'DELIVERY_IMPOSSIBLE',
];

/** The codes of the failing checks, in order; every check once, in the fixed order, texts only when failing. */
function failing(r: {
  checks: { code: string; ok: boolean; detail: string | null; action: string | null }[];
}) {
  expect(r.checks.map((c) => c.code)).to.deep.equal(ORDER);
  for (const c of r.checks) {
    if (c.ok) expect([c.detail, c.action], c.code).to.deep.equal([null, null]);
    else
      expect(c.detail && c.action, c.code)
        .to.be.a('string')
        .and.not.equal('');
  }
  return r.checks.filter((c) => !c.ok).map((c) => c.code);
}

forEachDatabase('shop readiness', (database) => {
  let s: ShopTest;
  beforeEach(async () => (s = await startShopTest(database)));
  afterEach(async () => s.t.close());

  it('names the deepest cause with several checks failing at once, then each state in turn to READY', async () => {
    const bare = await s.bareClient();
    let r = await s.readiness(bare.token);
    expect(failing(r)).to.deep.equal([
      'NO_LICENSE',
      'NO_STORE_PROFILE',
      'NO_SLUG',
      'NO_OFFERS',
      'ROUTER_NOT_LINKED',
      'NO_STOCK',
    ]);
    expect(r).to.deep.include({
      can_sell: false,
      state: 'NO_LICENSE',
      store_slug: null,
      plan_code: null,
      expires_at: null,
      offers_count: 0,
      vouchers_available: 0,
      access_mode: null,
      radius_refill_available: false,
      router: null,
      delivery: { possible: false, source: 'NONE', reason: r.delivery.reason },
    });
    expect(r.blocking_reason).to.equal(r.checks[0].detail);

    // The fixture's client holds the RADIUS licence.
    r = await s.readiness();
    expect(r.state).to.equal('NO_STORE_PROFILE');
    expect(r.plan_code).to.equal('RADIUS_ANNUAL');
    expect(r.expires_at).to.be.a('string');

    await s.api('PUT', '/api/v1/clients/store-config', { display_name: 'Chez Awa' });
    expect((await s.readiness()).state).to.equal('NO_SLUG');
    await s.api('PATCH', '/api/v1/clients/store-config', { store_slug: 'chez-awa' });
    r = await s.readiness();
    expect([r.state, r.store_slug]).to.deep.equal(['NO_OFFERS', 'chez-awa']);

    // An entry with no price (pushed or derived) is not an offer; a priced one is.
    await s.push([{ name: '1h' }]);
    expect((await s.readiness()).state).to.equal('NO_OFFERS');
    await s.push([{ name: '1h', price: 200 }]);
    r = await s.readiness();
    expect(failing(r)).to.deep.equal(['ROUTER_NOT_LINKED', 'NO_STOCK']);
    expect([r.state, r.offers_count]).to.deep.equal(['ROUTER_NOT_LINKED', 1]);

    // A linked agent: the ticket is made on the router (DIRECT); zero stock is no blocker then.
    const site = await s.shopSite('SHOP-A');
    r = await s.readiness();
    expect(failing(r)).to.deep.equal([]);
    expect(r).to.deep.include({ can_sell: true, state: 'READY', blocking_reason: null, access_mode: 'VPN' });
    expect(r.delivery).to.include({ possible: true, source: 'DIRECT' });
    expect(r.router).to.include({
      allocation_id: site.allocationId,
      serial: 'SHOP-A',
      tunnel_status: 'CONNECTED',
    });

    // Link down, no RADIUS router, no stock: NO_STOCK, and collect nothing.
    await s.disconnect(site);
    r = await s.readiness();
    expect(failing(r)).to.deep.equal(['NO_STOCK']);
    expect(r.state).to.equal('NO_STOCK');
    expect(r.delivery).to.include({ possible: false, source: 'NONE' });
    expect(r.router.tunnel_status).to.equal('DISCONNECTED');
  });

  it('STOCK, then RADIUS, then DELIVERY_IMPOSSIBLE when only hidden profiles hold stock', async () => {
    await s.api('PUT', '/api/v1/clients/store-config', { display_name: 'Chez Awa', store_slug: 'chez-awa' });
    const site = await s.shopSite('SHOP-A');
    const enrolled = await s.enrolActive(site);
    await priceProfile(s, '1h', 250);
    await s.runJob();
    let r = await s.readiness();
    expect(r).to.deep.include({ state: 'READY', vouchers_available: 10, radius_refill_available: true });
    expect(r.delivery.source).to.equal('STOCK');

    // 1h hidden (its stock stays), 2h offered but unknown to the ticket store (nothing to stock): RADIUS.
    await s.push([
      { name: '1h', is_active: false },
      { name: '2h', price: 300 },
    ]);
    r = await s.readiness();
    expect(r).to.deep.include({ state: 'READY', offers_count: 1, vouchers_available: 0 });
    expect(r.delivery.source).to.equal('RADIUS');

    // No RADIUS router any more: the link still makes tickets on the router.
    const del = await s.radius('DELETE', `/nas/${enrolled.nas.id}`);
    expect(del.status, JSON.stringify(del.body)).to.equal(200);
    r = await s.readiness();
    expect([r.state, r.delivery.source, r.radius_refill_available]).to.deep.equal(['READY', 'DIRECT', false]);

    // And with the link down: stock held only for the hidden 1h.
    await s.disconnect(site);
    r = await s.readiness();
    expect(failing(r)).to.deep.equal(['DELIVERY_IMPOSSIBLE']);
    expect(r).to.deep.include({ state: 'DELIVERY_IMPOSSIBLE', can_sell: false, vouchers_available: 0 });
    expect(r.delivery).to.include({ possible: false, source: 'NONE' });
    expect(r.blocking_reason).to.equal(r.checks[6].detail);
  });

  it('counts, sells and keeps only stock tickets a buyer can still be given (a disabled one is replaced)', async () => {
    await s.api('PUT', '/api/v1/clients/store-config', { display_name: 'Chez Awa', store_slug: 'chez-awa' });
    const site = await s.shopSite('SHOP-D');
    await s.enrolActive(site);
    await priceProfile(s, '1h', 250);
    await s.runJob();
    expect((await s.readiness()).vouchers_available).to.equal(10);
    const stock = await s.t.db.db
      .selectFrom('shop_stock')
      .select('ticket_code')
      .where('client_id', '=', s.client.id)
      .orderBy('id')
      .execute();
    const codes = stock.map((r) => r.ticket_code);
    // The manager suspends the three oldest and deletes a fourth in the ticket store.
    for (const [code, status] of [
      [codes[0], 'DISABLED'],
      [codes[1], 'DISABLED'],
      [codes[2], 'DISABLED'],
      [codes[3], 'DELETED'],
    ]) {
      const res = await s.api('PATCH', `/api/v1/radius/tickets/${code}`, { status });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
    let r = await s.readiness();
    expect(r.vouchers_available).to.equal(6);
    // A sale skips them: it takes the oldest ticket still ACTIVE.
    const sold = await s.t.controller.services.shop.recordSale(s.client.id, {
      reference: 'pay-disabled-1',
      amountXof: 250,
      collectedBy: 'PLATFORM',
      profileName: '1h',
    });
    expect(sold.ticket_code).to.equal(codes[4]);
    expect((await s.readiness()).vouchers_available).to.equal(5);
    // The stock engine fills the offer back with new tickets; the disabled ones stay out of it.
    await s.runJob();
    r = await s.readiness();
    expect(r.vouchers_available).to.equal(10);
    // Every ticket in stock is sold or disabled: none left to give, so no STOCK delivery from it.
    const all = await s.t.db.db
      .selectFrom('shop_stock')
      .select('ticket_code')
      .where('client_id', '=', s.client.id)
      .where('sold_at', 'is', null)
      .execute();
    for (const { ticket_code } of all)
      await s.api('PATCH', `/api/v1/radius/tickets/${ticket_code}`, { status: 'DISABLED' });
    r = await s.readiness();
    expect(r.vouchers_available).to.equal(0);
    expect(r.delivery.source).to.not.equal('STOCK');
  });

  it('needs a client token', async () => {
    const anon = await s.t.request('GET', '/api/v1/clients/store/ticketshop/readiness');
    expect(anon.status).to.equal(401);
    const tech = await s.t.account('technician');
    const other = await s.api('GET', '/api/v1/clients/store/ticketshop/readiness', undefined, tech.token);
    expect(other.status).to.equal(403);
  });
});
