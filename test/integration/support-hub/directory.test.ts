// The public directory and detail, expert records and presence, through the routes.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';
import { Hub } from './hub-fixture.js';

forEachDatabase('support directory', (database) => {
  let t: TestController;
  let hub: Hub;
  beforeEach(async () => {
    t = await startTestController(database);
    hub = await new Hub(t).init();
  });
  afterEach(() => t.close());

  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((p) => p.id);

  it('lists active certified experts only, with nulls that do not lie', async () => {
    const a = await hub.expert({
      name: 'Awa',
      country: 'bj',
      tags: ['MikroTik', 'VPN'],
      languages: ['fr'],
      messenger_number: '+22990000001',
      price: 5000,
      bio: 'Dix ans de réseaux',
    });
    const uncertified = await hub.expert({ is_certified: false });
    const inactive = await hub.expert({ is_active: false });
    const inactiveInternal = await hub.expert({ is_active: false, is_internal: true });
    // An internal account leaves only through is_active, certified or not.
    const internal = await hub.expert({ is_certified: false, is_internal: true });
    const client = await t.account('client');
    const res = await hub.directory();
    expect(res.status).to.equal(200);
    expect(ids(res).sort()).to.deep.equal([a.id, internal.id].sort());
    expect(ids(res)).not.to.include.members([uncertified.id, inactive.id, inactiveInternal.id]);
    expect(res.body.meta).to.deep.equal({ total: 2, page: 1, limit: 20 });
    expect(res.body.data.find((p: { id: string }) => p.id === a.id)).to.deep.include({
      name: 'Awa',
      rating: null,
      isOnline: false,
      status_detail: 'OFFLINE',
      country: 'BJ',
      ticketsResolved: 0,
      tags: ['MikroTik', 'VPN'],
      price: 5000,
      currency: 'XOF',
      languages: ['fr'],
      success_rate: null,
      tier_level: 'NOVICE',
      messenger_url: 'https://wa.me/22990000001',
    });
    // On quote is null, never 0; no number, no link.
    const b = await hub.expert({ name: 'Bio' });
    const item = (await hub.directory()).body.data.find((p: { id: string }) => p.id === b.id);
    expect(item).to.include({ price: null, messenger_url: null, rating: null });
    // A price of 0 would read as free: refused.
    const zero = await hub.setExpert(b.id, { price: 0 });
    expect(zero.status).to.equal(400);
    expect(zero.body.error.code).to.equal('VALIDATION_ERROR');
    // Flags are an administrator's: a client or a technician gets 403; a client account is no expert.
    expect(
      (
        await t.request('PUT', `/api/v1/admin/support/experts/${b.id}`, {
          token: b.token,
          body: { is_certified: true },
        })
      ).status,
    ).to.equal(403);
    const notTech = await hub.setExpert(client.id, { name: 'X' });
    expect(notTech.body.error.code).to.equal('NOT_A_TECHNICIAN');
    expect((await hub.setExpert(b.id, { is_active: 'yes' })).status).to.equal(400);
  });

  it('filters by status, country (any case) and tags (one in common, untagged never)', async () => {
    const online = await hub.expert({ country: 'BJ', tags: ['vpn', 'radius'] });
    const busy = await hub.expert({ country: 'tg', tags: ['Hotspot'] });
    const offline = await hub.expert({ country: 'BJ' });
    const client = await t.account('client');
    for (const e of [online, busy])
      expect(
        (await t.request('POST', '/api/v1/support/presence', { token: e.token, body: {} })).body.data,
      ).to.deep.equal({ isOnline: true, status_detail: 'AVAILABLE' });
    const urgent = await hub.mission(client.token, { is_urgent: true });
    expect((await hub.claim(busy, urgent)).status).to.equal(200);

    expect(ids(await hub.directory('?status=online'))).to.deep.equal([online.id]);
    expect(ids(await hub.directory('?status=busy'))).to.deep.equal([busy.id]);
    expect(ids(await hub.directory('?status=offline'))).to.deep.equal([offline.id]);
    expect(ids(await hub.directory('?country=bj')).sort()).to.deep.equal([online.id, offline.id].sort());
    expect(ids(await hub.directory('?country=TG'))).to.deep.equal([busy.id]);
    expect(ids(await hub.directory('?tags=hotspot,nothing'))).to.deep.equal([busy.id]);
    expect(ids(await hub.directory('?tags=VPN&country=BJ'))).to.deep.equal([online.id]);
    expect(ids(await hub.directory('?tags=nothing'))).to.deep.equal([]);

    // Exactly online, busy or offline: the status_detail names and other cases are other values.
    for (const q of ['?status=away', '?status=AVAILABLE', '?status=Online', '?status=BUSY', '?status=']) {
      const bad = await hub.directory(q);
      expect(bad.status, q).to.equal(400);
      expect(bad.body.error.code, q).to.equal('INVALID_STATUS');
    }
    for (const q of ['?limit=0', '?limit=101', '?page=0', '?limit=abc', '?country=BEN']) {
      const res = await hub.directory(q);
      expect(res.status, q).to.equal(400);
      expect(res.body.error.code, q).to.equal('VALIDATION_ERROR');
    }
    expect((await hub.directory('?limit=100')).body.meta.limit).to.equal(100);
    const page = await hub.directory('?limit=1&page=2');
    expect(page.body.meta).to.deep.equal({ total: 3, page: 2, limit: 1 });
    expect(page.body.data).to.have.length(1);
  });

  it('orders by reputation score, a tie by tier, and keeps internal experts with their true tier', async () => {
    const novice = await hub.expert();
    const ingenieur = await hub.expert({ tier_level: 'INGENIEUR' });
    const internal = await hub.expert({ tier_level: 'PRO', is_internal: true });
    // Never rated: all three at the prior alone, so the tier decides.
    expect(ids(await hub.directory())).to.deep.equal([ingenieur.id, internal.id, novice.id]);
    // A 5-star review lifts the novice above them.
    const client = await t.account('client');
    const m = await hub.mission(client.token);
    await hub.claim(novice, m);
    const rev = await t.request('POST', `/api/v1/support/tickets/${m}/review`, {
      token: client.token,
      body: { rating: 5, comment: 'Parfait' },
    });
    expect(rev.status).to.equal(201);
    expect(rev.body.data).to.deep.equal({
      expert_id: novice.id,
      rating: 5,
      votes: 1,
      reputation_score: 68.75,
    });
    const list = (await hub.directory()).body.data;
    expect(list.map((p: { id: string }) => p.id)).to.deep.equal([novice.id, ingenieur.id, internal.id]);
    expect(list.find((p: { id: string }) => p.id === internal.id).tier_level).to.equal('PRO');
  });

  it('answers the detail with bio, votes and the latest reviews; 404 when absent or inactive', async () => {
    const e = await hub.expert({ bio: 'Fibre et radio' });
    const detail = await t.request('GET', `/api/v1/support/professionals/${e.id}`);
    expect(detail.status).to.equal(200);
    expect(detail.body.data).to.deep.include({
      id: e.id,
      bio: 'Fibre et radio',
      tier_level: 'NOVICE',
      votes: 0,
      reviews: [],
      rating: null,
    });
    for (const id of ['00000000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const res = await t.request('GET', `/api/v1/support/professionals/${id}`);
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal('PROFESSIONAL_NOT_FOUND');
    }
    await hub.setExpert(e.id, { is_active: false });
    expect((await t.request('GET', `/api/v1/support/professionals/${e.id}`)).body.error.code).to.equal(
      'PROFESSIONAL_NOT_FOUND',
    );
  });

  it('lets a heartbeat lapse: offline after 90 s silent, the sweep publishes it, false leaves at once', async () => {
    const e = await hub.expert();
    const beat = () =>
      t.request('POST', '/api/v1/support/presence', { token: e.token, body: { online: true } });
    expect((await beat()).status).to.equal(200);
    t.clock.advance(60_000);
    await beat();
    t.clock.advance(89_000);
    expect(ids(await hub.directory('?status=online'))).to.deep.equal([e.id]);
    expect((await hub.runJob('SUPPORT_PRESENCE_SWEEP')).result).to.deep.equal({ expired: 0 });
    t.clock.advance(1_000);
    // At 90 s the directory already shows it offline, and the sweep records it.
    expect(ids(await hub.directory('?status=offline'))).to.deep.equal([e.id]);
    expect((await hub.runJob('SUPPORT_PRESENCE_SWEEP')).result).to.deep.equal({ expired: 1 });
    await beat();
    const leave = await t.request('POST', '/api/v1/support/presence', {
      token: e.token,
      body: { online: false },
    });
    expect(leave.body.data).to.deep.equal({ isOnline: false, status_detail: 'OFFLINE' });
    // Only technicians with an expert record; a bad body changes nothing.
    const client = await t.account('client');
    expect(
      (await t.request('POST', '/api/v1/support/presence', { token: client.token, body: {} })).status,
    ).to.equal(403);
    const bare = await t.account('technician');
    expect(
      (await t.request('POST', '/api/v1/support/presence', { token: bare.token, body: {} })).body.error.code,
    ).to.equal('EXPERT_PROFILE_REQUIRED');
    expect(
      (await t.request('POST', '/api/v1/support/presence', { token: e.token, body: { online: 'yes' } }))
        .status,
    ).to.equal(400);
    expect((await t.request('POST', '/api/v1/support/presence', { body: {} })).status).to.equal(401);
  });
});
