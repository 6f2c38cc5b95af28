// Shop profiles (GET, POST …/sync), the router sync job and the stock engine, through the routes.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { priceProfile, startShopTest, type ShopTest } from './shop-fixture.js';

const PROFILES = '/api/v1/clients/store/profiles';

forEachDatabase('shop profiles and router sync', (database) => {
  let s: ShopTest;
  beforeEach(async () => (s = await startShopTest(database)));
  afterEach(async () => s.t.close());

  const list = async (token?: string) => {
    const res = await s.api('GET', PROFILES, undefined, token);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.success).to.equal(true);
    return res.body.data as Record<string, unknown>[];
  };

  it('answers [] until a first push, even after a router sync; a push upserts with defaults', async () => {
    await s.shopSite('SHOP-A');
    await s.api('PUT', '/api/v1/clients/store-config', { display_name: 'Chez Awa' });
    expect(await list()).to.deep.equal([]);
    const job = await s.runJob();
    expect(job.body.data.result).to.include({ tenants: 1, read: 1 });
    expect(await list()).to.deep.equal([]);

    const res = await s.push([
      { name: '1h', price: 200, data_limit: '1G', time_limit: '1h', validity: '1d' },
      { name: '7d', display_name: 'Semaine', is_active: false },
    ]);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ success: true, updated_count: 2, deleted_count: 0 });
    expect(res.body.message).to.be.a('string');
    expect(await list()).to.deep.equal([
      {
        name: '1h',
        price: 200,
        data_limit: '1G',
        time_limit: '1h',
        validity: '1d',
        display_name: '1h',
        is_active: true,
      },
      {
        name: '7d',
        price: null,
        data_limit: null,
        time_limit: null,
        validity: null,
        display_name: 'Semaine',
        is_active: false,
      },
    ]);

    // A second push upserts only what it names: 7d is replaced, 1h is kept, a delete of an unknown name counts 0.
    const again = await s.push([
      { name: '7d', price: 1500 },
      { name: 'absent', action: 'delete' },
    ]);
    expect(again.body).to.deep.include({ updated_count: 1, deleted_count: 0 });
    const after = await list();
    expect(after.map((e) => [e.name, e.price, e.is_active, e.display_name])).to.deep.equal([
      ['1h', 200, true, '1h'],
      ['7d', 1500, true, '7d'],
    ]);
  });

  it('refuses a push whose profiles is not an array or holds a malformed entry, changing nothing', async () => {
    await s.push([{ name: '1h', price: 200 }]);
    const before = await list();
    const bad: unknown[] = [
      { profiles: 'nope' },
      { profiles: { name: '1h' } },
      {},
      { profiles: [{ price: 100 }] },
      { profiles: [{ name: '' }] },
      { profiles: [{ name: '1h', price: -1 }] },
      { profiles: [{ name: '1h', price: 10.5 }] },
      { profiles: [{ name: '1h', price: '100' }] },
      { profiles: [{ name: '1h', is_active: 'yes' }] },
      { profiles: [{ name: '1h', action: 'remove' }] },
      { profiles: [{ name: 'a\nb' }] },
      {
        profiles: [
          { name: '1h', price: 1 },
          { name: '1h', price: 2 },
        ],
      },
      { profiles: [{ name: '2h', price: 1 }, 'x'] },
    ];
    for (const body of bad) {
      const res = await s.api('POST', `${PROFILES}/sync`, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.success).to.equal(false);
      expect(res.body.error).to.be.an('object');
    }
    const raw = await s.api('POST', `${PROFILES}/sync`, undefined, undefined, {
      'content-type': 'text/plain',
    });
    expect(raw.status).to.be.oneOf([400, 415]);
    expect(await list()).to.deep.equal(before);
    // Another tenant's NAS id (or any unknown one) is not found.
    const unknown = await s.api('POST', `${PROFILES}/sync`, {
      nas_id: '0190a1b2-0000-7000-8000-000000000000',
      profiles: [{ name: '9h', price: 9 }],
    });
    expect(unknown.status).to.equal(404);
    expect(await list()).to.deep.equal(before);
  });

  it('keeps tenants apart', async () => {
    const other = await s.licensedClient();
    await s.push([{ name: '1h', price: 200 }]);
    expect(await list(other.token)).to.deep.equal([]);
    await s.push([{ name: '1h', action: 'delete' }], other.token);
    expect(await list()).to.have.length(1);
    expect((await s.readiness(other.token)).offers_count).to.equal(0);
  });

  it('the sync job reads the router, adds new profiles with their derived price, restocks active offers only', async () => {
    const site = await s.shopSite('SHOP-A');
    await s.enrolActive(site);
    await priceProfile(s, '1h', 250);
    // A shop exists once configured (or pushed to): only shops are synced.
    await s.api('PUT', '/api/v1/clients/store-config', { display_name: 'Chez Awa' });
    const job = await s.runJob();
    expect(job.body.data.status, JSON.stringify(job.body)).to.equal('OK');
    expect(job.body.data.result).to.include({ tenants: 1, read: 1, failed: 0 });
    // 1h is priced in the ticket store (derived price), 7d is not: one offer, restocked to 10.
    let r = await s.readiness();
    expect(r).to.include({ offers_count: 1, vouchers_available: 10, state: 'NO_SLUG' });
    expect(r.delivery).to.include({ possible: true, source: 'STOCK' });

    // Restocks that meet (the job, a push, a live read) fill an offer once: back to 10, not more.
    for (const reference of ['pre-1', 'pre-2', 'pre-3']) {
      await s.t.controller.services.shop.recordSale(s.client.id, {
        reference,
        amountXof: 250,
        collectedBy: 'PLATFORM',
        profileName: '1h',
      });
    }
    expect((await s.readiness()).vouchers_available).to.equal(7);
    const shop = s.t.controller.services.shop;
    await Promise.all([
      s.runJob(),
      s.push([{ name: '1h', price: 250 }]),
      ...Array.from({ length: 4 }, () => shop.catalogue.restock(s.client.id)),
    ]);
    expect((await s.readiness()).vouchers_available).to.equal(10);

    // The stock lives in the ticket store: ten ACTIVE tickets of 1h, commented as the shop's.
    const tickets = await s.radius('GET', '/tickets?limit=100');
    expect(tickets.status, JSON.stringify(tickets.body)).to.equal(200);
    const shopTickets = (
      tickets.body.data as { comment: string; status: string; profile_name: string }[]
    ).filter((t) => t.comment === 'boutique');
    expect(shopTickets).to.have.length(13);
    expect(shopTickets.every((t) => t.status === 'ACTIVE' && t.profile_name === '1h')).to.equal(true);

    // Live profiles: the last read, RouterOS-named.
    const live = await s.api('GET', '/api/v1/clients/router/hotspot-profiles');
    expect(live.body.result).to.deep.equal([
      { name: '1h', 'rate-limit': '2M/4M', 'shared-users': '1', 'session-timeout': '1h' },
      { name: '7d', 'rate-limit': '5M/10M' },
    ]);

    // A push hides 1h and prices 7d: at once, 7d is restocked and 1h is not sellable any more.
    await s.push([
      { name: '1h', is_active: false },
      { name: '7d', price: 1000 },
    ]);
    r = await s.readiness();
    expect(r).to.include({ offers_count: 1, vouchers_available: 10 });
    // A hidden profile is never restocked, by the job either: a sale takes one 1h ticket.
    await s.t.controller.services.shop.recordSale(s.client.id, {
      reference: 'pay-1',
      amountXof: 250,
      collectedBy: 'PLATFORM',
      profileName: '1h',
    });
    await s.runJob();
    const stock = await s.t.db.db
      .selectFrom('shop_stock')
      .select(['profile_name', (eb) => eb.fn.countAll<number>().as('n')])
      .where('client_id', '=', s.client.id)
      .where('sold_at', 'is', null)
      .groupBy('profile_name')
      .orderBy('profile_name')
      .execute();
    expect(stock.map((x) => [x.profile_name, Number(x.n)])).to.deep.equal([
      ['1h', 9],
      ['7d', 10],
    ]);

    // `action: delete` forgets 7d: gone from the catalogue until the next router sync finds it again.
    const del = await s.push([{ name: '7d', action: 'delete' }]);
    expect(del.body).to.deep.include({ updated_count: 0, deleted_count: 1 });
    expect((await s.readiness()).offers_count).to.equal(0);
    await s.runJob();
    // Found again with its derived price (none in the ticket store): not an offer until priced.
    await priceProfile(s, '7d', 900);
    await s.runJob();
    expect((await s.readiness()).offers_count).to.equal(1);
    expect(await list()).to.deep.equal([
      {
        name: '1h',
        price: null,
        data_limit: null,
        time_limit: null,
        validity: null,
        display_name: '1h',
        is_active: false,
      },
    ]);

    // A profile removed from the router leaves the catalogue at the next sync.
    s.routerProfiles = [{ name: '1h' }];
    await s.runJob();
    expect((await s.readiness()).offers_count).to.equal(0);
  });

  it('a job with the link down or a refusing router reads nothing and fails no tenant', async () => {
    const site = await s.shopSite('SHOP-A');
    s.routerProfiles = null;
    let job = await s.runJob();
    expect(job.body.data.result).to.include({ tenants: 0 });
    await s.push([{ name: '1h', price: 100 }]);
    job = await s.runJob();
    expect(job.body.data.result).to.include({ tenants: 1, read: 0, failed: 0 });
    await s.disconnect(site);
    job = await s.runJob();
    expect(job.body.data.result).to.include({ tenants: 1, read: 0, failed: 0 });
    const commands = await s.t.db.db
      .selectFrom('agent_commands')
      .select('name')
      .where('name', '=', 'hotspot.profiles.list')
      .execute();
    // One read tried while linked; none queued for the router while its link is down.
    expect(commands).to.have.length(1);
  });
});
