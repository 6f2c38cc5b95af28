// The daily jobs through the routes: progression (with its TIER_CHANGED push), the quota, silence
// (WARNED, DELISTED, relisted by one mission), and internal accounts left out of all three.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';
import { Hub, type Tech } from './hub-fixture.js';

const DAY = 86_400_000;

forEachDatabase('support daily jobs', (database) => {
  let t: TestController;
  let hub: Hub;
  beforeEach(async () => {
    t = await startTestController(database);
    hub = await new Hub(t).init();
  });
  afterEach(() => t.close());

  /** n free missions taken and closed (resolved as said), each reviewed by its own client. */
  async function missions(tech: Tech, n: number, rating: number, resolved = n) {
    const client = await t.account('client');
    for (let i = 0; i < n; i++) {
      const m = await hub.mission(client.token);
      await hub.claim(tech, m);
      await hub.close(tech, m, i < resolved);
      // One client, many reviews, lower weights: the mean is what the rules read.
      await t.request('POST', `/api/v1/support/tickets/${m}/review`, {
        token: client.token,
        body: { rating },
      });
    }
  }

  it('promotes a NOVICE at 10/10/4.2/80 %, one step a day, with a TIER_CHANGED push; internal accounts stay', async () => {
    const e = await hub.expert();
    const internal = await hub.expert({ is_internal: true });
    await missions(e, 10, 5, 8);
    await missions(internal, 10, 5);
    const before = await t.request('GET', '/api/v1/support/progression', { token: e.token });
    expect(before.body.data).to.deep.include({
      current_tier: 'NOVICE',
      next_tier: 'PRO',
      facts: { free_missions: 10, total_missions: 10, rating: 5, success_rate: 80 },
      requirements: { free_missions: 10, total_missions: 10, rating: 4.2, success_rate: 80 },
      remaining: { free_missions: 0, total_missions: 0, rating: 0, success_rate: 0 },
      revenue_share: { expert: 60, platform: 40 },
      next_revenue_share: { expert: 75, platform: 25 },
    });
    const run = await hub.runJob('SUPPORT_PROGRESSION');
    expect(run.result.changes).to.deep.equal([
      { expert_id: e.id, from: 'NOVICE', to: 'PRO', reason: 'PROMOTION' },
    ]);
    const pushes = (await hub.inbox(e)).filter((n) => n.type === 'TIER_CHANGED');
    expect(pushes).to.have.length(1);
    expect(pushes[0]!.data).to.include({ from: 'NOVICE', to: 'PRO', reason: 'PROMOTION' });
    // A second run the same day changes nothing.
    expect((await hub.runJob('SUPPORT_PROGRESSION')).result.changed).to.equal(0);
    const after = (await t.request('GET', '/api/v1/support/progression', { token: e.token })).body.data;
    expect(after).to.include({ current_tier: 'PRO', next_tier: 'EXPERT' });
    expect(after.remaining).to.deep.equal({
      free_missions: 10,
      total_missions: 50,
      rating: 0,
      success_rate: 10,
    });
    const top = await hub.expert({ tier_level: 'INGENIEUR' });
    expect(
      (await t.request('GET', '/api/v1/support/progression', { token: top.token })).body.data,
    ).to.include({ next_tier: null, requirements: null, remaining: null, next_revenue_share: null });
  });

  it('demotes a PRO whose free quota is unmet while free missions were there, not when the queue was empty', async () => {
    const pro = await hub.expert({ tier_level: 'PRO' });
    const client = await t.account('client');
    // Four paid missions closed in the window owe one free one (1 per 4 at PRO).
    for (let i = 0; i < 4; i++) {
      const paid = await t.controller.services.support.createMission(client.id, {
        subject: 'Payée',
        category: 'autre',
        is_urgent: false,
        payment_status: 'ESCROWED',
        price_amount: 10_000,
      });
      await hub.claim(pro, paid.id);
      await hub.close(pro, paid.id);
    }
    expect(
      (await t.request('GET', '/api/v1/support/progression', { token: pro.token })).body.data.quota,
    ).to.include({ owed: 1, contributed: 0, suspended: true, met: true });
    expect((await hub.runJob('SUPPORT_PROGRESSION')).result.changed).to.equal(0);
    await hub.mission(client.token); // a free mission now waits in the queue
    t.clock.advance(DAY);
    const run = await hub.runJob('SUPPORT_PROGRESSION');
    expect(run.result.changes).to.deep.equal([
      { expert_id: pro.id, from: 'PRO', to: 'NOVICE', reason: 'QUOTA_UNMET' },
    ]);
  });

  it('counts a supervision as a free contribution of the senior', async () => {
    const senior = await hub.expert({ tier_level: 'EXPERT' });
    const junior = await hub.expert();
    const client = await t.account('client');
    // Six paid missions closed owe one free one (1 per 6 at EXPERT).
    for (let i = 0; i < 6; i++) {
      const paid = await t.controller.services.support.createMission(client.id, {
        subject: 'Payée',
        category: 'autre',
        is_urgent: false,
        payment_status: 'ESCROWED',
        price_amount: 10_000,
      });
      await hub.claim(senior, paid.id);
      await hub.close(senior, paid.id);
    }
    await hub.mission(client.token); // a free mission waits: the quota is not suspended
    const quotaOf = async () =>
      (await t.request('GET', '/api/v1/support/progression', { token: senior.token })).body.data.quota;
    expect(await quotaOf()).to.include({ owed: 1, contributed: 0, suspended: false, met: false });
    const work = await hub.mission(client.token);
    await hub.claim(junior, work);
    await hub.close(junior, work);
    const verdict = await t.request('POST', `/api/v1/support/tickets/${work}/supervise`, {
      token: senior.token,
      body: { verdict: 'VALIDE' },
    });
    expect(verdict.status).to.equal(201);
    expect(await quotaOf()).to.include({ owed: 1, contributed: 1, met: true });
    t.clock.advance(DAY);
    const run = await hub.runJob('SUPPORT_PROGRESSION');
    expect(run.result.changes.filter((c: { expert_id: string }) => c.expert_id === senior.id)).to.deep.equal(
      [],
    );
  });

  it('warns at 45 silent days, delists at 90 (reachable by link), relists at the next mission; internal accounts are exempt', async () => {
    let e = await hub.expert();
    const internal = await hub.expert({ is_internal: true });
    const client = await t.account('client');
    await hub.mission(client.token); // available all along
    t.clock.advance(44 * DAY);
    expect((await hub.runJob('SUPPORT_SILENCE')).result.changed).to.equal(0);
    t.clock.advance(DAY);
    expect((await hub.runJob('SUPPORT_SILENCE')).result.changed).to.equal(1);
    e = await hub.relogin(e);
    expect(
      (await hub.inbox(e)).filter((n) => n.type === 'ACTIVITY_STATUS_CHANGED').map((n) => n.data.status),
    ).to.deep.equal(['WARNED']);
    expect((await hub.directory()).body.data.map((p: { id: string }) => p.id)).to.include(e.id);
    t.clock.advance(44 * DAY);
    expect((await hub.runJob('SUPPORT_SILENCE')).result.changed).to.equal(0);
    t.clock.advance(DAY);
    expect((await hub.runJob('SUPPORT_SILENCE')).result.changed).to.equal(1);
    e = await hub.relogin(e);
    const listed = (await hub.directory()).body.data.map((p: { id: string }) => p.id);
    expect(listed).not.to.include(e.id);
    expect(listed).to.include(internal.id);
    expect((await t.request('GET', `/api/v1/support/professionals/${e.id}`)).status).to.equal(200);
    // Made internal, it is listed at once (only is_active takes an internal account out); back to
    // external, its delisting holds until its next mission.
    const listedNow = async () => (await hub.directory()).body.data.map((p: { id: string }) => p.id);
    expect((await hub.setExpert(e.id, { is_internal: true })).status).to.equal(200);
    expect(await listedNow()).to.include(e.id);
    expect((await hub.setExpert(e.id, { is_internal: false })).status).to.equal(200);
    expect(await listedNow()).not.to.include(e.id);
    const fresh = await t.account('client');
    await hub.claim(e, await hub.mission(fresh.token));
    expect((await hub.directory()).body.data.map((p: { id: string }) => p.id)).to.include(e.id);
  });

  it('skips silence when no mission was available', async () => {
    await hub.expert();
    t.clock.advance(120 * DAY);
    expect((await hub.runJob('SUPPORT_SILENCE')).result.changed).to.equal(0);
  });
});
