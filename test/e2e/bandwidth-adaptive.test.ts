// The bandwidth programme's adaptive caps, limiter and impact end to end: simulated RouterOS 6.49
// and 7.19 routers, each with the real agent runtime, behind one controller on a manual clock (one
// stack per database for the whole file). The usage store is fed as the agents' points feed it
// (bandwidth.test.ts runs that path through the agent); what the routers hold is read from them.
import { expect } from 'chai';
import { ManualClock } from '../../controller/core/clock.js';
import { forEachDatabase } from '../support/databases.js';
import { startLiveStack, type LiveStack } from '../support/live-site.js';
import type { RouterSim } from '../routeros-sim/router-sim.js';

const GB = 1e9;
const GIB = 2 ** 30;
/** The simulators' zone (UTC+0 all year): the router day is the UTC day. */
const ZONE = 'Africa/Dakar';

interface Router {
  version: string;
  sim: RouterSim;
  allocationId: string;
  nasId: string;
}

const queue = (sim: RouterSim, name: string) => sim.state.table('/queue/tree').findBy('name', name)?.props;
const markedCount = (sim: RouterSim) =>
  ['/queue/tree', '/queue/type', '/ip/firewall/mangle', '/ip/firewall/filter', '/ip/firewall/address-list']
    .flatMap((m) => sim.state.table(m).list())
    .filter(
      (r) => (r.props.comment ?? '').startsWith('ticketnet:bw:') || (r.props.name ?? '').startsWith('tn-bw-'),
    ).length;

forEachDatabase('bandwidth adaptive caps, limiter and impact on simulated routers', (database) => {
  let stack: LiveStack;
  let clock: ManualClock;
  let routers: Router[];
  let adminToken: string;

  before(async function () {
    this.timeout(60_000);
    clock = new ManualClock(new Date('2026-11-21T08:00:00.000Z'));
    stack = await startLiveStack(database, { clock });
    await stack.t.controller.services.licences.grant(stack.client.id, 'MONITORING_MONTHLY', null);
    adminToken = (await stack.t.admin()).token;
    routers = [];
    for (const [version, serial] of [
      ['6.49.10', 'B0E2A0649'],
      ['7.19', 'B0E2A0719'],
    ] as const) {
      const site = await stack.addSite({ serial, version });
      const nas = await stack.radius('POST', '/nas', { router_serial: serial, apply_mode: 'app_apply' });
      expect(nas.status, JSON.stringify(nas.body)).to.equal(201);
      routers.push({ version, sim: site.sim, allocationId: site.allocationId, nasId: nas.body.nas.id });
    }
  });
  after(async () => stack?.close());
  // The limiter allows 5 calls a minute: each test starts in a fresh window.
  beforeEach(() => clock.advance(61_000));

  /**
   * New tokens at the clock's time, and the monitoring subscription renewed: the clock moves by
   * weeks, further than a token or a month's subscription lives.
   */
  const relog = async () => {
    await stack.t.controller.services.licences.grant(stack.client.id, 'MONITORING_MONTHLY', null);
    const email = (stack.client as { email?: string }).email;
    const res = await stack.t.request('POST', '/api/v1/auth/login', {
      body: { email, password: 'passw0rd-ok' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    stack.client.token = res.body.data.token as string;
    adminToken = (await stack.t.admin()).token;
  };
  const reconcile = async () => {
    const res = await stack.t.request('POST', '/api/v1/radius/admin/bandwidth/reconcile', {
      token: adminToken,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as Record<string, number>;
  };
  const put = (body: Record<string, unknown>) => stack.radius('PUT', '/bandwidth/program', body);
  const state = async (nasId: string) =>
    (
      (await stack.radius('GET', '/bandwidth/program')).body.programmes as (Record<string, unknown> & {
        nas_id: string;
        consommation: Record<string, unknown>;
      })[]
    ).find((p) => p.nas_id === nasId)!;
  const journal = async (nasId: string) =>
    (await stack.radius('GET', `/bandwidth/activity?nas_id=${nasId}`)).body.activites as {
      type: string;
      detail: Record<string, unknown> & { mesures?: { acceleration_pct: number } };
    }[];
  const alerts = async (nasId: string) =>
    (
      (await stack.t.request('GET', '/api/v1/notifications?limit=100', { token: stack.client.token })).body
        .data as { data: { metadata: { type: string; nas_id: string; alerte: string } } }[]
    )
      .filter((n) => n.data.metadata?.type === 'BANDWIDTH' && n.data.metadata.nas_id === nasId)
      .map((n) => n.data.metadata.alerte);
  /** WAN readings of a router every 5 minutes from `fromIso`, `bytesEach` apart. */
  async function traffic(router: Router, fromIso: string, steps: number, bytesEach: number) {
    const start = Date.parse(fromIso);
    const base =
      (
        await stack.t.db.db
          .selectFrom('usage_routers')
          .select('last_rx_bytes')
          .where('allocation_id', '=', router.allocationId)
          .executeTakeFirst()
      )?.last_rx_bytes ?? 0;
    for (let i = 0; i <= steps; i++) {
      await stack.t.controller.services.usage.ingest({
        clientId: stack.client.id,
        allocationId: router.allocationId,
        at: new Date(start + i * 300_000),
        rxBytes: Number(base) + Math.round(i * bytesEach),
        txBytes: 0,
        timeZone: ZONE,
      });
    }
  }

  it('shares 5 calls a minute between PUT and DELETE: what is refused never reaches the router', async function () {
    this.timeout(30_000);
    const [r] = routers;
    const today = clock.now().getUTCDay();
    const programme = (limit: number) => ({
      nas_id: r!.nasId,
      limit_mbps: limit,
      mode: 'SCHEDULED',
      schedule_weekdays: [today],
    });
    for (const limit of [10, 9, 8]) expect((await put(programme(limit))).status).to.equal(200);
    const unknown = await stack.radius('DELETE', '/bandwidth/program/0190a0a0-0000-7000-8000-000000000000');
    expect(unknown.status).to.equal(404);
    expect((await put(programme(7))).status).to.equal(200);
    const sixth = await put(programme(3));
    expect(sixth.status).to.equal(429);
    expect(sixth.body.error.code).to.equal('CLICK_SPAM_PROTECTION');
    const refusedDelete = await stack.radius('DELETE', `/bandwidth/program/${r!.nasId}`);
    expect(refusedDelete.status).to.equal(429);
    expect(await state(r!.nasId)).to.include({ limit_mbps: 7, enabled: true, revision: 4 });

    expect(await reconcile()).to.deep.include({ traites: 1, poses: 1, bascules: 1 });
    expect(queue(r!.sim, 'tn-bw-down')).to.include({ 'max-limit': '7000000' });

    // A minute on, the DELETE goes through and the agent cleans the router at once.
    clock.advance(61_000);
    const off = await stack.radius('DELETE', `/bandwidth/program/${r!.nasId}`);
    expect(off.status, JSON.stringify(off.body)).to.equal(200);
    expect(off.body).to.deep.include({ disabled: true, nettoye: true });
    expect(markedCount(r!.sim)).to.equal(0);
  });

  it('caps both routers on the daily quota of their day, and lifts the caps the next day', async function () {
    this.timeout(30_000);
    for (const r of routers) {
      expect(
        (await put({ nas_id: r.nasId, limit_mbps: 4, mode: 'ADAPTIVE', daily_quota_gb: 2 })).status,
      ).to.equal(200);
      await traffic(r, '2026-11-23T07:00:00Z', 10, 0.25 * GB);
    }
    clock.set(new Date('2026-11-23T08:00:00Z'));
    expect(await reconcile()).to.deep.include({ traites: 2, poses: 2, bascules: 2, injoignables: 0 });
    for (const r of routers) {
      expect(queue(r.sim, 'tn-bw-down'), r.version).to.include({ parent: 'global', 'max-limit': '4000000' });
      expect(queue(r.sim, 'tn-bw-ess-up'), r.version).to.include({ priority: '1', 'limit-at': '1000000' });
      expect(queue(r.sim, 'tn-bw-rest-down'), r.version).to.include({
        priority: '8',
        'max-limit': '4000000',
      });
      const s = await state(r.nasId);
      expect(s, r.version).to.include({ etat_constate: 'ON', motif: 'QUOTA_JOURNALIER', timezone: ZONE });
      expect(s.consommation.octetsJour).to.equal(2.5 * GB);
    }
    // Nothing changed: nothing written.
    expect(await reconcile()).to.deep.include({ poses: 0, conformes: 2 });

    clock.set(new Date('2026-11-24T00:10:00Z'));
    expect(await reconcile()).to.deep.include({ traites: 2, poses: 2, bascules: 2 });
    for (const r of routers) {
      expect(markedCount(r.sim), r.version).to.equal(0);
      expect((await journal(r.nasId)).map((e) => e.type).slice(0, 2)).to.deep.equal([
        'THROTTLE_OFF',
        'THROTTLE_ON',
      ]);
      expect(await alerts(r.nasId)).to.include.members(['THROTTLE_ON', 'THROTTLE_OFF']);
      expect(await state(r.nasId)).to.include({ etat_constate: 'OFF' });
    }
  });

  it('caps both routers on a consumption peak, with its measure in the journal', async function () {
    this.timeout(60_000);
    const quiet = await stack.radius('PUT', '/bandwidth/preferences', { quiet_start: 12, quiet_end: 14 });
    expect(quiet.status, JSON.stringify(quiet.body)).to.equal(200);
    for (const r of routers) {
      expect((await put({ nas_id: r.nasId, limit_mbps: 4, mode: 'ADAPTIVE' })).status).to.equal(200);
      // 00:00–10:30: 0.1 GiB per 5 minutes; then 0.5 GiB per 5 minutes until 12:30.
      await traffic(r, '2026-11-25T00:00:00Z', 126, 0.1 * GIB);
      await traffic(r, '2026-11-25T10:30:00Z', 24, 0.5 * GIB);
    }
    clock.set(new Date('2026-11-25T12:30:00Z'));
    expect(await reconcile()).to.deep.include({ traites: 2, bascules: 2 });
    for (const r of routers) {
      expect(queue(r.sim, 'tn-bw-up'), r.version).to.include({ 'max-limit': '4000000' });
      const [entry] = await journal(r.nasId);
      expect(entry!.type).to.equal('THROTTLE_ON');
      expect(entry!.detail.motif).to.equal('PIC_DE_CONSOMMATION');
      expect(entry!.detail.mesures!.acceleration_pct).to.be.greaterThan(35);
      expect(await alerts(r.nasId)).to.include('PEAK');
      expect(await state(r.nasId)).to.include({ etat_constate: 'ON', motif: 'PIC_DE_CONSOMMATION' });
    }
    // 12:30 in the routers' zone is inside the quiet hours 12–14: the pushes wait until 14:00 there.
    const held = await stack.t.db.db
      .selectFrom('notifications')
      .select(['not_before'])
      .where('type', '=', 'BANDWIDTH')
      .where('created_at', '>=', '2026-11-25T12:30:00.000Z')
      .execute();
    expect(held.map((n) => n.not_before)).to.deep.equal([
      '2026-11-25T14:00:00.000Z',
      '2026-11-25T14:00:00.000Z',
    ]);
  });

  it('reports the impact from the days passes capped: raw, paired weekdays, negative, insufficient', async function () {
    this.timeout(60_000);
    const [paired, raw] = routers as [Router, Router];
    // 6.49: three market dates (a Friday, two Saturdays); 7.19: every Saturday.
    const dates = ['2026-12-11', '2026-12-12', '2026-12-19'];
    const programmes = [
      { nas_id: paired.nasId, limit_mbps: 4, mode: 'SCHEDULED', scheduled_dates: dates },
      { nas_id: raw.nasId, limit_mbps: 4, mode: 'SCHEDULED', schedule_weekdays: [6] },
    ];
    for (const body of programmes) expect((await put(body)).status).to.equal(200);
    for (const day of ['2026-12-11', '2026-12-12', '2026-12-19', '2026-12-26']) {
      clock.set(new Date(`${day}T09:00:00Z`));
      await relog();
      expect((await reconcile()).traites).to.equal(2);
      const saturday = new Date(`${day}T00:00:00Z`).getUTCDay() === 6;
      expect(queue(raw.sim, 'tn-bw-down')?.['max-limit'], `7.19 ${day}`).to.equal(
        saturday ? '4000000' : undefined,
      );
      expect(queue(paired.sim, 'tn-bw-down')?.['max-limit'], `6.49 ${day}`).to.equal(
        dates.includes(day) ? '4000000' : undefined,
      );
    }
    const measured = async (router: Router, days: [string, number][]) => {
      for (const [day, gb] of days)
        await stack.t.db.db
          .insertInto('usage_hours')
          .values({
            allocation_id: router.allocationId,
            hour: `${day}T10:00:00.000Z`,
            client_id: stack.client.id,
            local_day: day,
            bytes: gb * GB,
          })
          .execute();
    };
    // 7.19: the Saturdays at 1 GB, Fridays and a Sunday at 2 GB; no measurement on a Tuesday.
    await measured(raw, [
      ['2026-12-11', 2],
      ['2026-12-12', 1],
      ['2026-12-18', 2],
      ['2026-12-19', 1],
      ['2026-12-20', 2],
      ['2026-12-25', 2],
      ['2026-12-26', 1],
    ]);
    // 6.49: capped days used more than the normal ones; Fridays and Saturdays have both kinds.
    await measured(paired, [
      ['2026-12-11', 3],
      ['2026-12-12', 4],
      ['2026-12-19', 4],
      ['2026-12-18', 2],
      ['2026-12-20', 1],
      ['2026-12-26', 2],
    ]);
    clock.set(new Date('2026-12-27T08:00:00Z'));
    await relog();
    const impact = async (query: string) => {
      const res = await stack.radius('GET', `/bandwidth/impact?${query}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    };
    const r = await impact(`jours=30&nas_id=${raw.nasId}`);
    expect(r).to.include({ fenetre_jours: 30, programmes: 1, timezone: ZONE });
    expect(r.impact.courbe).to.have.length(7);
    expect(r.impact).to.include({
      jours_brides: 3,
      jours_normaux: 4,
      fiabilite: 'BONNE',
      methode: 'MOYENNE_BRUTE',
      jours_semaine_apparies: 0,
      reduction_pct: 50,
      reduction_brute_pct: 50,
      economie_estimee_gb: 3,
    });
    const p = (await impact(`jours=30&nas_id=${paired.nasId}`)).impact;
    expect(p).to.include({
      jours_brides: 3,
      jours_normaux: 3,
      fiabilite: 'BONNE',
      methode: 'JOURS_APPARIES',
      jours_semaine_apparies: 2,
      reduction_pct: -75,
      reduction_brute_pct: -120,
      economie_estimee_gb: -4.5,
    });
    const short = (await impact(`jours=7&nas_id=${raw.nasId}`)).impact;
    expect(short).to.include({ fiabilite: 'INSUFFISANTE', reduction_pct: null, economie_estimee_gb: null });
    expect(short.fiabilite_motif).to.be.a('string');
  });
});
