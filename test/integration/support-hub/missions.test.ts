// Missions: posting, category tiers, the claim race, closing, notes, supervision and reviews.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';
import { Hub } from './hub-fixture.js';

forEachDatabase('support missions', (database) => {
  let t: TestController;
  let hub: Hub;
  beforeEach(async () => {
    t = await startTestController(database);
    hub = await new Hub(t).init();
  });
  afterEach(() => t.close());

  it('posts a free mission whatever price or payment status the body claims, and gates claims by category tier', async () => {
    const client = await t.account('client');
    const res = await t.request('POST', '/support/api/tickets', {
      token: client.token,
      body: {
        subject: 'VPN',
        description: 'Tunnel',
        category: 'advanced VPN configuration',
        price_amount: 90_000,
        payment_status: 'ESCROWED',
        is_urgent: true,
      },
    });
    expect(res.status).to.equal(201);
    expect(res.body.data).to.include({
      status: 'OPEN',
      payment_status: 'FREE',
      price_amount: null,
      required_tier: 'EXPERT',
      is_urgent: true,
      category: 'ADVANCED_VPN_CONFIGURATION',
    });
    const pro = await hub.expert({ tier_level: 'PRO' });
    const low = await hub.claim(pro, res.body.data.id);
    expect(low.status).to.equal(403);
    expect(low.body.error.code).to.equal('TIER_TOO_LOW');
    expect(low.body.details).to.deep.equal({ required_tier: 'EXPERT', current_tier: 'PRO' });
    const tiers: [string, string][] = [
      ['basic router repair', 'PRO'],
      ['firewall security audit', 'INGENIEUR'],
      ['câblage', 'NOVICE'],
    ];
    for (const [category, tier] of tiers) {
      const m = await t.request('POST', '/support/api/tickets', {
        token: client.token,
        body: { subject: 's', category },
      });
      expect(m.body.data.required_tier, category).to.equal(tier);
    }
    // Bad input: nothing posted; a technician may not post.
    for (const body of [
      { category: 'x' },
      { subject: '', category: 'x' },
      { subject: 's', category: 'x', is_urgent: 'yes' },
    ]) {
      const bad = await t.request('POST', '/support/api/tickets', { token: client.token, body });
      expect(bad.status).to.equal(400);
      expect(bad.body.error.code).to.equal('VALIDATION_ERROR');
    }
    expect(
      (
        await t.request('POST', '/support/api/tickets', {
          token: pro.token,
          body: { subject: 's', category: 'x' },
        })
      ).status,
    ).to.equal(403);
    expect(
      (await t.request('GET', '/api/v1/support/tickets', { token: pro.token })).body.data,
    ).to.have.length(4);
  });

  it('gives a mission to one of fifty concurrent claims; the others get 409', async () => {
    const client = await t.account('client');
    const id = await hub.mission(client.token);
    const techs = await Promise.all(Array.from({ length: 50 }, () => hub.expert()));
    const answers = await Promise.all(techs.map((tech) => hub.claim(tech, id)));
    const won = answers.filter((a) => a.status === 200);
    expect(won).to.have.length(1);
    expect(answers.filter((a) => a.status === 409)).to.have.length(49);
    expect(
      answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'MISSION_ALREADY_CLAIMED'),
    ).to.equal(true);
    expect(techs.map((x) => x.id)).to.include(won[0]!.body.data.assignee_id);
    // A claimed mission leaves the open list.
    expect(
      (await t.request('GET', '/api/v1/support/tickets', { token: techs[0]!.token })).body.data,
    ).to.deep.equal([]);
  });

  it('hides a mission awaiting payment from technicians', async () => {
    const client = await t.account('client');
    const e = await hub.expert();
    const paid = await t.controller.services.support.createMission(client.id, {
      subject: 'Payée',
      category: 'autre',
      is_urgent: false,
      status: 'PENDING_PAYMENT',
      payment_status: 'ESCROWED',
      price_amount: 10_000,
    });
    expect((await t.request('GET', '/api/v1/support/tickets', { token: e.token })).body.data).to.deep.equal(
      [],
    );
    const claim = await hub.claim(e, paid.id);
    expect(claim.status).to.equal(404);
    expect(claim.body.error.code).to.equal('MISSION_NOT_FOUND');
  });

  it('shows BUSY while an urgent mission is open, AVAILABLE once every open one is closed', async () => {
    const client = await t.account('client');
    const e = await hub.expert();
    await t.request('POST', '/api/v1/support/presence', { token: e.token, body: {} });
    const [u1, u2] = [
      await hub.mission(client.token, { is_urgent: true }),
      await hub.mission(client.token, { is_urgent: true }),
    ];
    await hub.claim(e, u1);
    await hub.claim(e, u2);
    const status = async () =>
      (await t.request('GET', `/api/v1/support/professionals/${e.id}`)).body.data.status_detail;
    expect(await status()).to.equal('BUSY');
    expect((await hub.close(e, u1)).body.data).to.include({ status: 'CLOSED', resolved: true });
    expect(await status()).to.equal('BUSY');
    await hub.close(e, u2, false);
    expect(await status()).to.equal('AVAILABLE');
    const detail = (await t.request('GET', `/api/v1/support/professionals/${e.id}`)).body.data;
    expect(detail).to.include({ ticketsResolved: 1, success_rate: 50 });
    const again = await hub.close(e, u2);
    expect(again.status).to.equal(409);
    const other = await hub.expert();
    const m = await hub.mission(client.token);
    await hub.claim(e, m);
    expect((await hub.close(other, m)).body.error.code).to.equal('NOT_ASSIGNED');
    expect(
      (await t.request('POST', `/api/v1/support/tickets/${m}/close`, { token: e.token, body: {} })).status,
    ).to.equal(400);
  });

  it('keeps notes to the assigned technician, reading and writing', async () => {
    const client = await t.account('client');
    const [mine, other] = [await hub.expert(), await hub.expert()];
    const m = await hub.mission(client.token);
    await hub.claim(mine, m);
    const url = `/api/v1/support/tickets/${m}/notes`;
    const post = await t.request('POST', url, {
      token: mine.token,
      body: { content: 'Alimentation changée' },
    });
    expect(post.status).to.equal(201);
    expect(post.body.data).to.include({ content: 'Alimentation changée', author_id: mine.id });
    for (const res of [
      await t.request('POST', url, { token: other.token, body: { content: 'x' } }),
      await t.request('GET', url, { token: other.token }),
    ]) {
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('NOT_ASSIGNED');
    }
    expect((await t.request('POST', url, { token: mine.token, body: { content: '' } })).status).to.equal(400);
    expect((await t.request('GET', url, { token: client.token })).status).to.equal(403);
    const list = await t.request('GET', url, { token: mine.token });
    expect(list.body.data.map((n: { content: string }) => n.content)).to.deep.equal(['Alimentation changée']);
    expect(
      (
        await t.request('GET', `/api/v1/support/tickets/${'0'.repeat(8)}-0000-7000-8000-000000000000/notes`, {
          token: mine.token,
        })
      ).status,
    ).to.equal(404);
  });

  it('lets EXPERT and above, or an internal account, supervise once, never their own work', async () => {
    const client = await t.account('client');
    const junior = await hub.expert();
    const m = await hub.mission(client.token);
    await hub.claim(junior, m);
    const url = `/api/v1/support/tickets/${m}/supervise`;
    const body = { verdict: 'VALIDE', comment: 'Propre' };
    const pro = await hub.expert({ tier_level: 'PRO' });
    const internalNovice = await hub.expert({ is_internal: true });
    const expert = await hub.expert({ tier_level: 'EXPERT' });
    const early = await t.request('POST', url, { token: expert.token, body });
    expect(early.body.error.code).to.equal('MISSION_NOT_CLOSED');
    await hub.close(junior, m);
    const byPro = await t.request('POST', url, { token: pro.token, body });
    expect(byPro.status).to.equal(403);
    expect(byPro.body.error.code).to.equal('TIER_TOO_LOW');
    expect((await t.request('POST', url, { token: expert.token, body: { verdict: 'BOF' } })).status).to.equal(
      400,
    );
    const ok = await t.request('POST', url, { token: internalNovice.token, body });
    expect(ok.status).to.equal(201);
    expect(ok.body.data).to.include({ ticket_id: m, verdict: 'VALIDE', comment: 'Propre' });
    const twice = await t.request('POST', url, { token: expert.token, body: { verdict: 'A_CORRIGER' } });
    expect(twice.status).to.equal(409);
    expect(twice.body.error.code).to.equal('ALREADY_SUPERVISED');
    // One's own work: an internal expert who took a mission.
    const m2 = await hub.mission(client.token);
    await hub.claim(internalNovice, m2);
    await hub.close(internalNovice, m2);
    const self = await t.request('POST', `/api/v1/support/tickets/${m2}/supervise`, {
      token: internalNovice.token,
      body,
    });
    expect(self.status).to.equal(400);
    expect(self.body.error.code).to.equal('SELF_SUPERVISION');
  });

  it('takes a review only from the client whose mission that expert took, once', async () => {
    const [client, stranger] = [await t.account('client'), await t.account('client')];
    const e = await hub.expert();
    const m = await hub.mission(client.token);
    const url = `/api/v1/support/tickets/${m}/review`;
    const untaken = await t.request('POST', url, { token: client.token, body: { rating: 5 } });
    expect(untaken.status).to.equal(403);
    expect(untaken.body.error.code).to.equal('REVIEW_NOT_ALLOWED');
    await hub.claim(e, m);
    const strange = await t.request('POST', url, { token: stranger.token, body: { rating: 1 } });
    expect(strange.status).to.equal(404);
    expect(strange.body.error.code).to.equal('MISSION_NOT_FOUND');
    expect((await t.request('POST', url, { token: e.token, body: { rating: 5 } })).status).to.equal(403);
    for (const body of [{ rating: 0 }, { rating: 6 }, { rating: 4.5 }, {}])
      expect((await t.request('POST', url, { token: client.token, body })).status).to.equal(400);
    expect((await t.request('GET', `/api/v1/support/professionals/${e.id}`)).body.data).to.include({
      votes: 0,
      rating: null,
    });
    expect(
      (await t.request('POST', url, { token: client.token, body: { rating: 4, comment: 'Bien' } })).status,
    ).to.equal(201);
    const twice = await t.request('POST', url, { token: client.token, body: { rating: 5 } });
    expect(twice.status).to.equal(409);
    expect(twice.body.error.code).to.equal('ALREADY_REVIEWED');
    const detail = (await t.request('GET', `/api/v1/support/professionals/${e.id}`)).body.data;
    // B = (17.5 + 4) / 6 = 3.5833: 25 × 2.5833
    expect(detail).to.include({ votes: 1, rating: 4, reputation_score: 64.58 });
    expect(detail.reviews).to.have.length(1);
    expect(detail.reviews[0]).to.include({ ticket_id: m, rating: 4, comment: 'Bien' });
  });
});
