// Adaptive caps from the usage store (daily quota, peak), RADIUS volumes for targeted users (max,
// not sum), notification preferences (push off, quiet hours in the router's zone), and the impact
// report on seeded days.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startBandwidthTest, type BwSite, type BwTest } from './bandwidth-fixture.js';

const GB = 1e9;
const GIB = 2 ** 30;

forEachDatabase('bandwidth adaptive, targeted and impact', (database) => {
  let t: BwTest;
  let site: BwSite;
  beforeEach(async () => {
    t = await startBandwidthTest(database);
    site = await t.bwSite('BWADA001');
  });
  afterEach(async () => t?.t.close());

  const usage = () => t.t.controller.services.usage;
  /** WAN readings every 5 minutes from `fromIso`, `bytesEach` apart, in the router's zone. */
  async function traffic(fromIso: string, steps: number, bytesEach: number, zone = 'Africa/Lagos') {
    const start = Date.parse(fromIso);
    const base =
      (
        await t.t.db.db
          .selectFrom('usage_routers')
          .select('last_rx_bytes')
          .where('allocation_id', '=', site.allocationId)
          .executeTakeFirst()
      )?.last_rx_bytes ?? 0;
    for (let i = 0; i <= steps; i++) {
      await usage().ingest({
        clientId: t.client.id,
        allocationId: site.allocationId,
        at: new Date(start + i * 300_000),
        rxBytes: Number(base) + Math.round(i * bytesEach),
        txBytes: 0,
        timeZone: zone,
      });
    }
  }
  const inbox = async () =>
    (
      (await t.t.request('GET', '/api/v1/notifications?limit=100', { token: t.client.token })).body.data as {
        data: { type: string; metadata: { type: string; nas_id: string; alerte: string } };
      }[]
    ).filter((n) => n.data.metadata?.type === 'BANDWIDTH');

  it('caps on the daily quota in the router day, and lifts it the next day', async () => {
    await t.bw('PUT', '/bandwidth/program', {
      nas_id: site.nasId,
      limit_mbps: 4,
      mode: 'ADAPTIVE',
      daily_quota_gb: 2,
    });
    // Lagos (UTC+1): 2026-11-21 from 23:00Z on is the 22nd there: bytes from 23:00Z count on the 22nd.
    await traffic('2026-11-21T07:00:00Z', 10, 0.25 * GB);
    t.t.clock.set(new Date('2026-11-21T08:00:00Z'));
    expect((await t.reconcile()).body).to.deep.include({ bascules: 1 });
    expect(site.applied.at(-1)!.cap).to.deep.equal({ limit_kbps: 4000, essential_share: 0.25 });
    const state = (await t.bw('GET', '/bandwidth/program')).body.programmes[0];
    expect(state).to.include({ etat_constate: 'ON', motif: 'QUOTA_JOURNALIER', timezone: 'Africa/Lagos' });
    expect(state.consommation.octetsJour).to.equal(2.5 * GB);
    t.t.clock.set(new Date('2026-11-21T23:10:00Z'));
    expect((await t.reconcile()).body).to.deep.include({ bascules: 1 });
    expect(site.applied.at(-1)!.cap).to.equal(null);
    const types = (await t.bw('GET', '/bandwidth/activity')).body.activites.map(
      (e: { type: string }) => e.type,
    );
    expect(types).to.deep.equal(['THROTTLE_OFF', 'THROTTLE_ON']);
    expect((await inbox()).map((n) => n.data.metadata.alerte)).to.have.members([
      'THROTTLE_ON',
      'THROTTLE_OFF',
    ]);
  });

  it('caps on a peak with its measure, and holds the push in quiet hours of the router zone', async () => {
    expect((await t.bw('PUT', '/bandwidth/preferences', { quiet_start: 12, quiet_end: 14 })).status).to.equal(
      200,
    );
    await t.bw('PUT', '/bandwidth/program', { nas_id: site.nasId, limit_mbps: 4, mode: 'ADAPTIVE' });
    // 01:00–11:30 local: 0.1 GiB per 5 minutes; then 0.5 GiB per 5 minutes until 13:30 local.
    await traffic('2026-11-21T00:00:00Z', 126, 0.1 * GIB);
    await traffic('2026-11-21T10:30:00Z', 24, 0.5 * GIB);
    t.t.clock.set(new Date('2026-11-21T12:30:00Z'));
    expect((await t.reconcile()).body).to.deep.include({ bascules: 1 });
    const entry = (await t.bw('GET', '/bandwidth/activity')).body.activites[0];
    expect(entry.detail.motif).to.equal('PIC_DE_CONSOMMATION');
    expect(entry.detail.mesures.acceleration_pct).to.be.greaterThan(35);
    const [alert] = await inbox();
    expect(alert!.data.metadata.alerte).to.equal('PEAK');
    // 13:30 local (Lagos) is inside 12–14: the push waits until 14:00 local, 13:00Z.
    const row = await t.t.db.db
      .selectFrom('notifications')
      .select(['not_before'])
      .where('type', '=', 'BANDWIDTH')
      .executeTakeFirstOrThrow();
    expect(row.not_before).to.equal('2026-11-21T13:00:00.000Z');
  });

  it('keeps notifications out of push when bandwidth_push is false', async () => {
    await t.bw('PUT', '/bandwidth/preferences', { bandwidth_push: false });
    await t.bw('PUT', '/bandwidth/program', { nas_id: site.nasId, limit_mbps: 4, schedule_weekdays: [6] });
    await t.reconcile();
    const rows = await t.t.db.db
      .selectFrom('notifications')
      .select(['push', 'in_app'])
      .where('type', '=', 'BANDWIDTH')
      .execute();
    expect(rows).to.deep.equal([{ push: 0, in_app: 1 }]);
    expect((await t.bw('PUT', '/bandwidth/preferences', { quiet_start: 24 })).status).to.equal(400);
  });

  it('takes the larger of RADIUS and the router per address, never the sum', async () => {
    await t.bw('PUT', '/bandwidth/program', {
      nas_id: site.nasId,
      limit_mbps: 4,
      mode: 'ADAPTIVE',
      user_daily_quota_gb: 1,
      user_limit_mbps: 1,
    });
    const session = (id: string, user: string, ip: string, bytes: number) => ({
      id,
      client_id: t.client.id,
      nas_id: site.nasId,
      ticket_code: user,
      acct_session_id: id,
      started_at: '2026-11-21T07:00:00.000Z',
      updated_at: '2026-11-21T07:55:00.000Z',
      stopped_at: null,
      input_octets: 0,
      input_gigawords: 0,
      output_octets: 0,
      output_gigawords: 0,
      total_bytes: bytes,
      session_time: 0,
      terminate_cause: null,
      framed_ip: ip,
      calling_station_id: null,
    });
    // ali: .2 → 0.7 (RADIUS) against 0.6 (router); .3 → 0.2 (RADIUS) against 0.25: 0.95 GB, under
    // the quota; their sum would be 1.75. zoe: 1.2 GB from RADIUS alone.
    await t.t.db.db
      .insertInto('radius_sessions')
      .values([
        session('s1', 'ali', '10.5.50.2', 0.7 * GB),
        session('s2', 'ali', '10.5.50.3', 0.2 * GB),
        session('s3', 'zoe', '10.5.50.7', 1.2 * GB),
      ])
      .execute();
    site.sessions = [
      { user: 'ali', address: '10.5.50.2', bytes_in: 0.6 * GB, bytes_out: 0 },
      { user: 'ali', address: '10.5.50.3', bytes_in: 0.25 * GB, bytes_out: 0 },
    ];
    t.t.clock.set(new Date('2026-11-21T08:00:00Z'));
    await t.reconcile();
    const users = (await t.bw('GET', '/bandwidth/program')).body.usagers_brides;
    expect(users.map((u: { username: string }) => u.username)).to.deep.equal(['zoe']);
    const entry = (await t.bw('GET', '/bandwidth/activity')).body.activites[0];
    expect(entry.detail).to.deep.include({
      username: 'zoe',
      observe_gb: 1.2,
      adresses: ['10.5.50.7'],
      reason: { sources: ['RADIUS'] },
    });
  });

  it('reports the impact on seeded days: raw means, insufficient, unmeasured days left out', async () => {
    await t.bw('PUT', '/bandwidth/program', {
      nas_id: site.nasId,
      limit_mbps: 4,
      mode: 'SCHEDULED',
      schedule_weekdays: [6],
    });
    // Three Saturdays bridled at 1 GB, Fridays and Sundays normal at 2 GB; one Tuesday unmeasured.
    const capped = ['2026-11-07', '2026-11-14', '2026-11-21'];
    for (const day of capped)
      await t.t.db.db
        .insertInto('bandwidth_capped_days')
        .values({ nas_id: site.nasId, day, client_id: t.client.id })
        .execute();
    for (const [day, gb] of [
      ['2026-11-06', 2],
      ['2026-11-07', 1],
      ['2026-11-13', 2],
      ['2026-11-14', 1],
      ['2026-11-15', 2],
      ['2026-11-20', 2],
      ['2026-11-21', 1],
    ] as const) {
      await t.t.db.db
        .insertInto('usage_hours')
        .values({
          allocation_id: site.allocationId,
          hour: `${day}T10:00:00.000Z`,
          client_id: t.client.id,
          local_day: day,
          bytes: gb * GB,
        })
        .execute();
    }
    await usage().ingest({
      clientId: t.client.id,
      allocationId: site.allocationId,
      at: new Date('2026-11-21T07:59:00Z'),
      rxBytes: 1,
      txBytes: 0,
      timeZone: 'UTC',
    });
    const res = await t.bw('GET', `/bandwidth/impact?jours=30&nas_id=${site.nasId}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ fenetre_jours: 30, programmes: 1, timezone: 'UTC' });
    const i = res.body.impact;
    expect(i.courbe).to.have.length(7);
    expect(i).to.include({
      jours_brides: 3,
      jours_normaux: 4,
      fiabilite: 'BONNE',
      methode: 'MOYENNE_BRUTE',
      jours_semaine_apparies: 0,
    });
    expect(i.reduction_pct).to.equal(50);
    expect(i.reduction_brute_pct).to.equal(50);
    expect(i.economie_estimee_gb).to.equal(3);
    const short = await t.bw('GET', `/bandwidth/impact?jours=7`);
    expect(short.body.impact).to.include({
      fiabilite: 'INSUFFISANTE',
      reduction_pct: null,
      economie_estimee_gb: null,
    });
    expect(short.body.impact.fiabilite_motif).to.be.a('string');
    for (const q of ['jours=6', 'jours=181', 'nas_id=0190a0a0-0000-7000-8000-000000000000']) {
      const bad = await t.bw('GET', `/bandwidth/impact?${q}`);
      expect(bad.status, q).to.be.oneOf([400, 404]);
    }
  });
});
