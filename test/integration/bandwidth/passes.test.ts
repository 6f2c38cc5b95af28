// Reconciliation passes over time and across instances: routers in two time zones at midnight, a
// hand edit found by the digest read, no volume source answering, the 6-hour alert window across
// two outages, and two controllers on one database never working on one router twice.
import { expect } from 'chai';
import sinon from 'sinon';
import { pino } from 'pino';
import { createController } from '../../../controller/controller.js';
import { ManualClock } from '../../../controller/core/clock.js';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';
import { testConfig } from '../../support/test-controller.js';
import { startBandwidthTest, type BwSite, type BwTest } from './bandwidth-fixture.js';

const GB = 1e9;

forEachDatabase('bandwidth passes', (database) => {
  let t: BwTest;
  let a: BwSite;
  let b: BwSite;
  beforeEach(async () => {
    t = await startBandwidthTest(database);
    a = await t.bwSite('BWPAS001');
    b = await t.bwSite('BWPAS002');
  });
  afterEach(async () => {
    sinon.restore();
    await t?.t.close();
  });

  const services = () => t.t.controller.services;
  const zone = (site: BwSite, timeZone: string) =>
    services().usage.recordTimeZone(t.client.id, site.allocationId, timeZone);
  const stateOf = async (site: BwSite) =>
    (await t.bw('GET', '/bandwidth/program')).body.programmes.find(
      (p: { nas_id: string }) => p.nas_id === site.nasId,
    );

  it('turns each router on and off at its own midnight', async () => {
    await zone(a, 'Africa/Lagos'); // UTC+1
    await zone(b, 'Africa/Dakar'); // UTC+0
    for (const site of [a, b])
      await t.bw('PUT', '/bandwidth/program', {
        nas_id: site.nasId,
        limit_mbps: 8,
        mode: 'SCHEDULED',
        schedule_weekdays: [0],
        scheduled_dates: ['2026-11-23'],
      });
    const at = async (iso: string) => {
      t.t.clock.set(new Date(iso));
      return (await t.reconcile()).body;
    };
    // Saturday 23:30 UTC: already Sunday in Lagos, still Saturday in Dakar.
    expect(await at('2026-11-21T23:30:00Z')).to.deep.include({ traites: 2, bascules: 1 });
    expect(a.applied.at(-1)!.cap).to.deep.include({ limit_kbps: 8000 });
    expect(b.applied.at(-1)!.cap).to.equal(null);
    expect(await stateOf(a)).to.include({
      timezone: 'Africa/Lagos',
      etat_constate: 'ON',
      jours_programmes_restants: 1,
    });
    expect(await stateOf(b)).to.include({ timezone: 'Africa/Dakar', etat_constate: 'OFF' });
    expect(await at('2026-11-22T00:30:00Z')).to.deep.include({ bascules: 1 });
    expect(b.applied.at(-1)!.cap).to.deep.include({ limit_kbps: 8000 });
    // Sunday 23:30 UTC: Monday 23rd in Lagos (a scheduled date), still Sunday in Dakar.
    expect(await at('2026-11-22T23:30:00Z')).to.deep.include({ bascules: 0 });
    expect(await stateOf(a)).to.include({ motif: 'JOUR_PROGRAMME', etat_constate: 'ON' });
    // Monday 23:30 UTC: Tuesday in Lagos (off), Monday 23rd in Dakar (on, the date).
    expect(await at('2026-11-23T23:30:00Z')).to.deep.include({ bascules: 1 });
    expect(a.applied.at(-1)!.cap).to.equal(null);
    expect(await stateOf(a)).to.include({ jours_programmes_restants: 0 });
    expect(await stateOf(b)).to.include({ etat_constate: 'ON', jours_programmes_restants: 1 });
  });

  it('reads a digest when nothing changed, and applies again when the router was edited by hand', async () => {
    await t.bw('PUT', '/bandwidth/program', { nas_id: a.nasId, limit_mbps: 5, schedule_weekdays: [6] });
    await t.reconcile();
    expect(a.applied).to.have.length(1);
    t.t.clock.advance(60_000);
    expect((await t.reconcile()).body).to.deep.include({ traites: 1, poses: 0, conformes: 1 });
    expect(a.applied).to.have.length(1);
    expect(a.digestReads).to.equal(1);
    a.edited = true;
    t.t.clock.advance(60_000);
    expect((await t.reconcile()).body).to.deep.include({ poses: 1, conformes: 0 });
    expect(a.applied).to.have.length(2);
    expect(a.applied[1]).to.deep.equal(a.applied[0]);
    // A programme change goes straight to the whole plan.
    await t.bw('PUT', '/bandwidth/program', { nas_id: a.nasId, limit_mbps: 6, schedule_weekdays: [6] });
    t.t.clock.advance(60_000);
    const reads = a.digestReads;
    await t.reconcile();
    expect(a.digestReads).to.equal(reads);
    expect(a.applied.at(-1)!.cap!.limit_kbps).to.equal(6000);
  });

  it('leaves the day’s user throttles as they are when no source answers', async () => {
    await t.bw('PUT', '/bandwidth/program', {
      nas_id: a.nasId,
      limit_mbps: 10,
      mode: 'ADAPTIVE',
      user_daily_quota_gb: 1,
      user_limit_mbps: 1,
    });
    a.sessions = [{ user: 'ali', address: '10.5.50.2', bytes_in: 2 * GB, bytes_out: 0 }];
    expect((await t.reconcile()).body).to.deep.include({ usagers_brides: 1 });
    // Neither RADIUS nor the router can say anything now.
    sinon.stub(services().radius, 'userVolumesSince').rejects(new Error('database away'));
    a.usageFails = true;
    a.sessions = [];
    t.t.clock.advance(300_000);
    expect((await t.reconcile()).body).to.deep.include({
      usagers_brides: 0,
      usagers_liberes: 0,
      injoignables: 0,
    });
    const users = (await t.bw('GET', '/bandwidth/program')).body.usagers_brides;
    expect(users.map((u: { username: string }) => u.username)).to.deep.equal(['ali']);
    expect(a.applied.at(-1)!.users.map((u) => u.addresses)).to.deep.equal([['10.5.50.2']]);
    // One source back, saying ali is gone: still throttled until the router's day ends.
    a.usageFails = false;
    t.t.clock.advance(300_000);
    expect((await t.reconcile()).body).to.deep.include({ usagers_liberes: 0 });
    t.t.clock.set(new Date('2026-11-22T00:05:00Z'));
    expect((await t.reconcile()).body).to.deep.include({ usagers_liberes: 1 });
  });

  it('journals every outage but notifies one per router within 6 hours', async () => {
    await t.bw('PUT', '/bandwidth/program', { nas_id: a.nasId, limit_mbps: 5, schedule_weekdays: [6] });
    await t.reconcile();
    const outage = async () => {
      await t.disconnect(a);
      expect((await t.reconcile()).body).to.deep.include({ injoignables: 1 });
      await a.agent.connect();
      t.t.clock.advance(60_000);
      expect((await t.reconcile()).body).to.deep.include({ injoignables: 0 });
    };
    const alerts = async () =>
      (
        await t.t.request('GET', '/api/v1/notifications?limit=100', { token: t.client.token })
      ).body.data.filter(
        (n: { data: { metadata?: { alerte: string; nas_id: string } } }) =>
          n.data.metadata?.alerte === 'ROUTER_UNREACHABLE' && n.data.metadata.nas_id === a.nasId,
      );
    await outage();
    t.t.clock.advance(2 * 3_600_000);
    await outage();
    const journal = (await t.bw('GET', `/bandwidth/activity?nas_id=${a.nasId}`)).body.activites;
    expect(journal.filter((e: { type: string }) => e.type === 'ROUTER_UNREACHABLE')).to.have.length(2);
    expect(await alerts()).to.have.length(1);
    t.t.clock.advance(4 * 3_600_000 + 60_000);
    await outage();
    expect(await alerts()).to.have.length(2);
  });

  it('never works on one router twice when two controllers pass at once', async () => {
    const second = await createController({
      config: testConfig({ instanceId: 'bandwidth-b' }),
      logger: pino({ level: 'silent' }),
      clock: new ManualClock(t.t.clock.now()),
      database: await (t.t.db as TestDbHandle).openAnother(),
    });
    try {
      for (const site of [a, b])
        await t.bw('PUT', '/bandwidth/program', {
          nas_id: site.nasId,
          limit_mbps: 5,
          schedule_weekdays: [6],
        });
      await t.keepLinks();
      const [x, y] = await Promise.all([
        services().bandwidth.reconcile(40),
        second.services.bandwidth.reconcile(40),
      ]);
      expect(x.traites + y.traites).to.equal(2);
      expect(x.injoignables + y.injoignables).to.equal(0);
      expect(a.applied).to.have.length(1);
      expect(b.applied).to.have.length(1);
      expect((await t.bw('GET', '/bandwidth/activity')).body.activites).to.have.length(2);
    } finally {
      await second.close();
    }
  });
});
