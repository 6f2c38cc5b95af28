// PUT, GET and DELETE /bandwidth/program and GET /bandwidth/classes through a real controller:
// each BW_* code in the contract's order with nothing recorded, the shared limiter, the licence
// rule, revisions, every field of the state, another tenant's router.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startBandwidthTest, type BwSite, type BwTest } from './bandwidth-fixture.js';

forEachDatabase('bandwidth programme routes', (database) => {
  let t: BwTest;
  let site: BwSite;
  before(async () => {
    t = await startBandwidthTest(database);
    site = await t.bwSite('BW000001');
  });
  after(async () => t?.t.close());
  // The limiter allows 5 calls a minute: each test starts in a fresh window.
  beforeEach(() => t.t.clock.advance(61_000));

  const put = (body: unknown, token?: string) => t.bw('PUT', '/bandwidth/program', body, token);
  const valid = () => ({
    nas_id: site.nasId,
    limit_mbps: 10,
    mode: 'SCHEDULED',
    scheduled_dates: ['2026-11-28'],
  });

  it('lists the classes to a client token without any licence', async () => {
    const other = await t.t.account('client');
    const res = await t.bw('GET', '/bandwidth/classes', undefined, other.token);
    expect(res.status).to.equal(200);
    expect(res.body.classes.map((c: { id: string }) => c.id)).to.include('dns');
    expect(res.body.classes).to.have.length(4);
    for (const c of res.body.classes) expect(c.plages).to.be.a('number').greaterThan(0);
    expect((await t.t.request('GET', '/api/v1/radius/bandwidth/classes')).status).to.equal(401);
  });

  it('answers the first failure in the contract order and records nothing', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ limit_mbps: 10 }, 400, 'BW_NAS_REQUIRED'],
      [{ ...valid(), nas_id: '0190a0a0-0000-7000-8000-000000000000' }, 404, 'BW_NAS_NOT_OWNED'],
      [{ ...valid(), nas_id: 'not-a-uuid', limit_mbps: 0 }, 404, 'BW_NAS_NOT_OWNED'],
      [{ ...valid(), limit_mbps: undefined }, 400, 'BW_LIMIT_REQUIRED'],
      [{ ...valid(), limit_mbps: 10_001 }, 400, 'BW_LIMIT_INVALID'],
      [{ ...valid(), mode: 'NEVER' }, 400, 'BW_MODE_INVALID'],
      [{ ...valid(), scheduled_dates: [] }, 400, 'BW_SCHEDULE_EMPTY'],
      [{ ...valid(), scheduled_dates: ['2026-02-29'] }, 400, 'BW_DATE_INVALID'],
      [{ ...valid(), schedule_weekdays: [7] }, 400, 'BW_WEEKDAY_INVALID'],
      [{ ...valid(), essential_share: 1 }, 400, 'BW_SHARE_INVALID'],
      [{ ...valid(), essential_classes: ['netflix'] }, 400, 'BW_CLASSES_INVALID'],
      [{ ...valid(), user_limit_mbps: 2 }, 400, 'BW_USER_PAIR_REQUIRED'],
      [{ ...valid(), max_throttled_users: 101 }, 400, 'BW_MAX_USERS_INVALID'],
      [{ ...valid(), daily_quota_gb: 0 }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [i, [body, status, code]] of cases.entries()) {
      if (i % 5 === 4) t.t.clock.advance(61_000);
      const res = await put(body);
      expect(res.status, code).to.equal(status);
      expect(res.body.error.code, JSON.stringify(res.body)).to.equal(code);
    }
    t.t.clock.advance(61_000);
    expect((await t.bw('GET', '/bandwidth/program')).body.programmes).to.deep.equal([]);
  });

  it('records revisions: a change is a new one, the same programme again is not', async () => {
    const first = await put({ ...valid(), scheduled_dates: ['2026-12-05', '2026-11-28', '2026-11-28'] });
    expect(first.status).to.equal(200);
    expect(first.body).to.deep.include({
      nas_id: site.nasId,
      enabled: true,
      mode: 'SCHEDULED',
      revision: 1,
      application: 'PLANIFIEE',
    });
    const again = await put({ ...valid(), scheduled_dates: ['2026-11-28', '2026-12-05'] });
    expect(again.body.revision).to.equal(1);
    const changed = await put({ ...valid(), limit_mbps: 8, scheduled_dates: ['2026-11-28', '2026-12-05'] });
    expect(changed.body.revision).to.equal(2);
  });

  it('shows every field of the state, and the limiter shares 5 calls a minute between PUT and DELETE', async () => {
    const state = await t.bw('GET', '/bandwidth/program');
    expect(state.status).to.equal(200);
    const [p] = state.body.programmes;
    expect(p).to.deep.equal({
      nas_id: site.nasId,
      enabled: true,
      mode: 'SCHEDULED',
      limit_mbps: 8,
      essential_share: 0.25,
      essential_classes: ['dns', 'whatsapp', 'telegram', 'messagerie_google'],
      scheduled_dates: ['2026-11-28', '2026-12-05'],
      schedule_weekdays: [],
      daily_quota_gb: null,
      monthly_quota_gb: null,
      user_daily_quota_gb: null,
      user_limit_mbps: null,
      max_throttled_users: 10,
      revision: 2,
      etat_souhaite: 'OFF',
      etat_constate: 'OFF',
      motif: null,
      timezone: 'UTC',
      derniere_verification: null,
      en_erreur: false,
      jours_programmes_restants: 2,
      consommation: { octetsJour: null, octetsDeuxHeures: null, octetsMois: null, dernierReleve: null },
      usagers_brides: 0,
    });
    expect(state.body.usagers_brides).to.deep.equal([]);

    const same = { ...valid(), limit_mbps: 8, scheduled_dates: ['2026-11-28', '2026-12-05'] };
    for (let i = 0; i < 4; i++) expect((await put(same)).status).to.equal(200);
    const fifth = await t.bw('DELETE', '/bandwidth/program/0190a0a0-0000-7000-8000-000000000000');
    expect(fifth.status).to.equal(404);
    const sixth = await put({ ...valid(), limit_mbps: 3 });
    expect(sixth.status).to.equal(429);
    expect(sixth.body.error.code).to.equal('CLICK_SPAM_PROTECTION');
    const refusedDelete = await t.bw('DELETE', `/bandwidth/program/${site.nasId}`);
    expect(refusedDelete.status).to.equal(429);
    const after = (await t.bw('GET', '/bandwidth/program')).body.programmes[0];
    expect(after).to.include({ limit_mbps: 8, enabled: true, revision: 2 });
  });

  it('refuses a client without the monitoring subscription, and takes SATELLITE_X for RADIUS', async () => {
    const other = await t.t.account('client');
    const res = await put(valid(), other.token);
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('RADIUS_LICENSE_INACTIVE');
    await t.grant(other.id, 'SATELLITE_X_ANNUAL');
    const noMonitoring = await put(valid(), other.token);
    expect(noMonitoring.status).to.equal(403);
    expect(noMonitoring.body.error.code).to.equal('LICENSE_INACTIVE');
    await t.grant(other.id, 'MONITORING_MONTHLY');
    // Entitled now: this client's own view, and our router is another tenant's (not found).
    t.t.clock.advance(61_000);
    const foreign = await put(valid(), other.token);
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.code).to.equal('BW_NAS_NOT_OWNED');
    expect((await t.bw('GET', '/bandwidth/program', undefined, other.token)).body.programmes).to.deep.equal(
      [],
    );
    expect(
      (await t.bw('DELETE', `/bandwidth/program/${site.nasId}`, undefined, other.token)).status,
    ).to.equal(404);
  });

  it('disables at once and cleans through the agent', async () => {
    const res = await t.bw('DELETE', `/bandwidth/program/${site.nasId}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ disabled: true, nettoye: true });
    expect(site.applied[site.applied.length - 1]).to.deep.equal({ cap: null, classes: [], users: [] });
    const state = (await t.bw('GET', '/bandwidth/program')).body.programmes[0];
    expect(state).to.include({ enabled: false, revision: 3, etat_souhaite: 'OFF', etat_constate: 'OFF' });
  });
});
