// The reconciliation through fake agents: counters, a scheduled day, an unreachable router (journal,
// one notification in 6 hours, pushed even in quiet hours), a DELETE while away then the sweep,
// targeted users from RADIUS and router volumes, journal paging under inserts, the fleet's 1,001
// events, and two passes at once never working on one router twice.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startBandwidthTest, type BwSite, type BwTest } from './bandwidth-fixture.js';

const GB = 1e9;

forEachDatabase('bandwidth reconciliation', (database) => {
  let t: BwTest;
  let a: BwSite;
  let b: BwSite;
  before(async () => {
    t = await startBandwidthTest(database);
    a = await t.bwSite('BWREC001');
    b = await t.bwSite('BWREC002');
  });
  after(async () => t?.t.close());
  beforeEach(() => t.t.clock.advance(61_000));

  const services = () => t.t.controller.services;
  const notifications = async () =>
    (await t.t.request('GET', '/api/v1/notifications?limit=100', { token: t.client.token })).body.data as {
      type: string;
      data: { type: string; metadata?: { type: string; nas_id: string; alerte: string } };
    }[];

  it('caps a router on its scheduled day and counts what the pass did', async () => {
    // START_TIME is Saturday 2026-11-21 (UTC: these routers reported no zone).
    for (const site of [a, b]) {
      const res = await t.bw('PUT', '/bandwidth/program', {
        nas_id: site.nasId,
        limit_mbps: 10,
        essential_share: 0.3,
        essential_classes: ['dns'],
        mode: 'SCHEDULED',
        schedule_weekdays: site === a ? [6] : [1],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
    const first = await t.reconcile();
    expect(first.status).to.equal(200);
    expect(first.body).to.deep.include({ traites: 2, poses: 2, bascules: 1, conformes: 0, injoignables: 0 });
    expect(a.applied.at(-1)!.cap).to.deep.equal({ limit_kbps: 10_000, essential_share: 0.3 });
    expect(a.applied.at(-1)!.classes.map((c) => c.id)).to.deep.equal(['dns']);
    expect(b.applied.at(-1)!.cap).to.equal(null);

    t.t.clock.advance(60_000);
    const second = await t.reconcile();
    expect(second.body).to.deep.include({ traites: 2, poses: 0, bascules: 0, conformes: 2, inchanges: 2 });

    const state = (await t.bw('GET', '/bandwidth/program')).body.programmes;
    expect(state.find((p: { nas_id: string }) => p.nas_id === a.nasId)).to.include({
      etat_souhaite: 'ON',
      etat_constate: 'ON',
      motif: 'JOUR_PROGRAMME',
      en_erreur: false,
    });
    const journal = (await t.bw('GET', '/bandwidth/activity')).body.activites;
    expect(journal).to.have.length(1);
    expect(journal[0]).to.include({ nas_id: a.nasId, type: 'THROTTLE_ON' });
    expect(journal[0].texte).to.match(/^Bridage activé sur .* à 10 Mbit\/s \(jour programmé\)\.$/);
    const bandwidth = (await notifications()).filter((n) => n.type === 'BANDWIDTH');
    expect(bandwidth).to.have.length(1);
    const metadata = { type: 'BANDWIDTH', nas_id: a.nasId, alerte: 'THROTTLE_ON' };
    expect(bandwidth[0]!.data).to.deep.equal({ type: 'BANDWIDTH', metadata });
    // The push carries the same metadata (FCM data are strings: nested objects as JSON text).
    await services().scheduler.runNow('NOTIFICATIONS_PUSH');
    const pushed = t.pushes.sent.filter((p) => p.message.data.type === 'BANDWIDTH');
    expect(pushed).to.have.length(1);
    expect(pushed[0]!.recipientId).to.equal(t.client.id);
    expect(JSON.parse(pushed[0]!.message.data.metadata!)).to.deep.equal(metadata);
  });

  it('leaves an unreachable router as it is: journal once, one notification in 6 hours, pushed in quiet hours', async () => {
    expect((await t.bw('PUT', '/bandwidth/preferences', { quiet_start: 0, quiet_end: 23 })).status).to.equal(
      200,
    );
    const before = a.applied.length;
    await t.disconnect(a);
    const pass = await t.reconcile();
    expect(pass.body).to.deep.include({ injoignables: 1 });
    expect(a.applied).to.have.length(before);
    t.t.clock.advance(3_600_000);
    await t.reconcile();
    const state = (await t.bw('GET', '/bandwidth/program')).body.programmes.find(
      (p: { nas_id: string }) => p.nas_id === a.nasId,
    );
    expect(state).to.include({ en_erreur: true, etat_constate: 'ON' });
    const entries = (await t.bw('GET', `/bandwidth/activity?nas_id=${a.nasId}`)).body.activites;
    expect(entries.filter((e: { type: string }) => e.type === 'ROUTER_UNREACHABLE')).to.have.length(1);
    const alerts = (await notifications()).filter((n) => n.data.metadata?.alerte === 'ROUTER_UNREACHABLE');
    expect(alerts).to.have.length(1);
    const row = await t.t.db.db
      .selectFrom('notifications')
      .select(['not_before', 'push'])
      .where('type', '=', 'BANDWIDTH')
      .where('data', 'like', '%ROUTER_UNREACHABLE%')
      .executeTakeFirstOrThrow();
    expect(row).to.deep.equal({ not_before: null, push: 1 });
  });

  it('records a DELETE while the router is away, and the sweep cleans it when it returns', async () => {
    const res = await t.bw('DELETE', `/bandwidth/program/${a.nasId}`);
    expect(res.body).to.deep.include({ disabled: true, nettoye: false });
    await a.agent.connect();
    await t.t.controller.services.allocations.get(t.client.id, a.allocationId);
    await t.reconcile();
    expect(a.applied.at(-1)).to.deep.equal({ cap: null, classes: [], users: [] });
    const state = (await t.bw('GET', '/bandwidth/program')).body.programmes.find(
      (p: { nas_id: string }) => p.nas_id === a.nasId,
    );
    expect(state).to.include({ enabled: false, etat_constate: 'OFF', en_erreur: false });
    const types = (await t.bw('GET', `/bandwidth/activity?nas_id=${a.nasId}`)).body.activites.map(
      (e: { type: string }) => e.type,
    );
    expect(types[0]).to.equal('THROTTLE_OFF');
  });

  it('throttles users from RADIUS and router volumes, the larger per address, 16 addresses at most', async () => {
    const res = await t.bw('PUT', '/bandwidth/program', {
      nas_id: b.nasId,
      limit_mbps: 10,
      mode: 'SCHEDULED',
      schedule_weekdays: [1],
      user_daily_quota_gb: 1,
      user_limit_mbps: 2,
      max_throttled_users: 1,
    });
    expect(res.status).to.equal(200);
    // ali: 0.6 GB on each of two addresses per source: the max per address gives 1.2 GB, over the
    // quota; the sum per address (2.4) is never taken. big: 17 addresses of 0.1 GB from the router.
    b.sessions = [
      { user: 'ali', address: '10.5.50.2', bytes_in: 0.5 * GB, bytes_out: 0.1 * GB },
      { user: 'ali', address: '10.5.50.3', bytes_in: 0.5 * GB, bytes_out: 0.1 * GB },
      ...Array.from({ length: 17 }, (_, i) => ({
        user: 'big',
        address: `10.5.51.${i + 1}`,
        bytes_in: 0.1 * GB,
        bytes_out: 0,
      })),
    ];
    await t.reconcile();
    // max_throttled_users 1: the larger of the two (big: 1.7 GB) only.
    let users = (await t.bw('GET', '/bandwidth/program')).body.usagers_brides;
    expect(users).to.have.length(1);
    expect(users[0]).to.include({
      nas_id: b.nasId,
      username: 'big',
      limit_mbps: 2,
      observed_bytes: 1.7 * GB,
    });
    expect(users[0].framed_ips).to.have.length(16);
    const sent = b.applied.at(-1)!;
    expect(sent.cap).to.equal(null);
    expect(sent.users).to.have.length(1);
    expect(sent.users[0]!.addresses).to.have.length(16);
    expect(sent.users[0]!.limit_kbps).to.equal(2000);
    const entry = (await t.bw('GET', `/bandwidth/activity?nas_id=${b.nasId}`)).body.activites[0];
    expect(entry).to.include({ type: 'USER_THROTTLED' });
    expect(entry.detail).to.deep.include({
      username: 'big',
      observe_gb: 1.7,
      reason: { sources: ['ROUTEUR'] },
    });
    expect(entry.detail.adresses).to.have.length(16);
    // No user throttle notifies.
    expect(
      (await notifications()).filter((n) => n.data.metadata?.alerte === 'USER_THROTTLED'),
    ).to.have.length(0);

    // The next day releases it.
    t.t.clock.advance(86_400_000);
    b.sessions = [];
    const next = await t.reconcile();
    expect(next.body).to.deep.include({ usagers_liberes: 1, usagers_brides: 0 });
    users = (await t.bw('GET', '/bandwidth/program')).body.usagers_brides;
    expect(users).to.deep.equal([]);
  });

  it('pages the journal newest first with an opaque cursor, stable while entries arrive', async () => {
    const journal = services().bandwidth.journal;
    for (let i = 0; i < 5; i++) {
      t.t.clock.advance(1000);
      await journal.record(t.client.id, b.nasId, 'THROTTLE_OFF', {}, `R${i}`);
    }
    const all = (await t.bw('GET', '/bandwidth/activity?limite=200')).body.activites.map(
      (e: { id: string }) => e.id,
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const res = await t.bw('GET', `/bandwidth/activity?limite=3${cursor ? `&avant=${cursor}` : ''}`);
      expect(res.status).to.equal(200);
      seen.push(...res.body.activites.map((e: { id: string }) => e.id));
      cursor = res.body.suivant;
      // Entries arriving meanwhile sort before the cursor: never repeated, never in the way.
      if (page++ === 0) await journal.record(t.client.id, b.nasId, 'THROTTLE_OFF', {}, 'late');
    } while (cursor !== null);
    expect(seen).to.deep.equal(all);
    for (const q of ['limite=0', 'limite=201', 'avant=bm90LWEtY3Vyc29y']) {
      const res = await t.bw('GET', `/bandwidth/activity?${q}`);
      expect(res.status, q).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    }
  });

  it('splits the fleet over the latest 1,000 events and says when there were more', async () => {
    const journal = services().bandwidth.journal;
    const fleet = async () =>
      (await t.t.request('GET', '/api/v1/radius/admin/bandwidth/fleet', { token: t.admin.token })).body;
    t.t.clock.advance(2 * 86_400_000);
    await t.reconcile(10);
    for (let i = 0; i < 1000; i += 100)
      await Promise.all(
        Array.from({ length: 100 }, () =>
          journal.record(
            t.client.id,
            b.nasId,
            'THROTTLE_ON',
            { motif: 'JOUR_PROGRAMME', limit_mbps: 1 },
            'x',
          ),
        ),
      );
    let f = await fleet();
    expect(f.evenements_24h).to.deep.equal({ THROTTLE_ON: 1000, USER_THROTTLED: 0, ROUTER_UNREACHABLE: 0 });
    expect(f.evenements_24h_tronques).to.equal(false);
    await journal.record(t.client.id, b.nasId, 'ROUTER_UNREACHABLE', {}, 'x');
    f = await fleet();
    expect(f.evenements_24h).to.deep.equal({ THROTTLE_ON: 999, USER_THROTTLED: 0, ROUTER_UNREACHABLE: 1 });
    expect(f.evenements_24h_tronques).to.equal(true);
    expect(f.programmes).to.deep.equal({ total: 2, actifs: 1, en_bridage: 0, injoignables: 0 });
    expect(
      (await t.t.request('GET', '/api/v1/radius/admin/bandwidth/fleet', { token: t.client.token })).status,
    ).to.equal(403);
  });

  it('never works on one router in two passes at once', async () => {
    for (const site of [a, b]) {
      await t.bw('PUT', '/bandwidth/program', {
        nas_id: site.nasId,
        limit_mbps: 5,
        schedule_weekdays: [0, 1, 2, 3, 4, 5, 6],
      });
    }
    t.t.clock.advance(61_000);
    await t.keepLinks();
    const before = a.applied.length + b.applied.length;
    const [x, y] = await Promise.all([
      services().bandwidth.reconcile(40),
      services().bandwidth.reconcile(40),
    ]);
    expect(x.traites + y.traites).to.equal(2);
    expect(a.applied.length + b.applied.length - before).to.equal(2);
    for (const q of ['limite=0', 'limite=201', 'limite=abc']) {
      const res = await t.t.request('POST', `/api/v1/radius/admin/bandwidth/reconcile?${q}`, {
        token: t.admin.token,
      });
      expect(res.status, q).to.equal(400);
    }
  });
});
