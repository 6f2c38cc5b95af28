// Usage alerts and preferences: thresholds just under and at 100 GiB, 5 GiB and 35 percent, one
// alert per NAS and router day across the router's midnight (ingestion and catch-up job alike),
// the push switches, and never a command to a router.
import { expect } from 'chai';
import { COMMANDS } from '../../../protocol/commands.js';
import { forEachDatabase } from '../../support/databases.js';
import { startQoeTest, type QoeSite, type QoeTest } from './qoe-fixture.js';

const GIB = 2 ** 30;
const X = 5 * GIB;
/** Earlier volume over 10 hours that makes 5 GiB in two hours exactly a 35 percent rise. */
const AT_RISE = Math.floor((5 * X) / 1.35);

forEachDatabase('qoe usage alerts', (database) => {
  let t: QoeTest;
  beforeEach(async () => (t = await startQoeTest(database)));
  afterEach(async () => t?.t.close());

  const runJob = async () => {
    const admin = await t.t.admin();
    const res = await t.t.request('POST', '/api/v1/admin/jobs/QOE_USAGE_ALERTS/run', { token: admin.token });
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
  };
  const ok = async (site: QoeSite, at: string, total: number) => {
    t.t.clock.set(new Date(at));
    const res = await t.point(site, at, total);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
  };
  const usageOf = async (site: QoeSite) =>
    ((await t.get('/usage')).body.nas as { nas_id: string }[]).find((n) => n.nas_id === site.nasId);

  it('alerts once per NAS and router day from 100 GiB, across the router midnight', async () => {
    const a = await t.qoeSite('QOE-D');
    // Lagos is UTC+1: its day changes at 23:00 UTC.
    await t.t.controller.services.usage.recordTimeZone(t.client.id, a.allocationId, 'Africa/Lagos');
    const enrolmentCommands = t.commandsOf(a).length;
    await ok(a, '2026-11-22T21:00:00Z', 0);
    await ok(a, '2026-11-22T21:05:00Z', 100 * GIB - 1);
    expect(await usageOf(a)).to.include({ daily_warning: false, accelerating: false });
    await runJob();
    expect(await t.alerts()).to.have.length(0);
    await ok(a, '2026-11-22T21:10:00Z', 100 * GIB);
    expect(await usageOf(a)).to.include({ daily_warning: true, acceleration_pct: null });
    let alerts = await t.alerts();
    expect(alerts).to.have.length(1);
    expect(alerts[0]!.data).to.deep.equal({
      type: 'QOE_USAGE_ALERT',
      nas_id: a.nasId,
      alert: 'DAILY',
      date: '2026-11-22',
      usage: { daily_gb: 107.374, last_two_hours_gb: 107.374, acceleration_pct: null },
      recommendation: {
        mode: 'SUGGEST_ONLY',
        action: 'SCHEDULE_NEXT_DAY_FAIR_QUEUE_REVIEW',
        reason: 'Le volume du jour a atteint 100 Gio sur le lien WAN.',
      },
    });
    expect(alerts[0]!.channels).to.deep.equal(['in_app', 'push']);
    // A suggestion, never worded as a throttle applied.
    expect(alerts[0]!.body).to.match(/Suggestion : revoir le partage équitable pour demain\./);
    expect(alerts[0]!.body).to.match(/Aucun usager ni aucune application n’a été bridé ou coupé\.$/);
    await ok(a, '2026-11-22T21:15:00Z', 110 * GIB);
    await runJob();
    expect(await t.alerts()).to.have.length(1);
    // 23:05 UTC is the 23rd in Lagos: a new router day, a new alert once it reaches 100 GiB.
    await ok(a, '2026-11-22T22:55:00Z', 110 * GIB);
    await ok(a, '2026-11-22T23:05:00Z', 210 * GIB);
    await ok(a, '2026-11-22T23:10:00Z', 211 * GIB);
    // Past UTC midnight it is still the 23rd in Lagos: the job finds the alert already raised.
    t.t.clock.set(new Date('2026-11-23T00:05:00Z'));
    await runJob();
    alerts = await t.alerts();
    expect(alerts.map((n) => (n.data as { date: string }).date)).to.deep.equal(['2026-11-22', '2026-11-23']);
    // No alert, ingestion or job sent the router a command that changes it (the reseller takeover
    // after enrolment reads only).
    const changes = t
      .commandsOf(a)
      .slice(enrolmentCommands)
      .filter((name) => COMMANDS[name as keyof typeof COMMANDS]?.effect !== 'read');
    expect(changes).to.deep.equal([]);
  });

  it('alerts on acceleration from 5 GiB in two hours and a 35 percent rise, not just under', async () => {
    const steep = await t.qoeSite('QOE-S');
    const rise = await t.qoeSite('QOE-R');
    // Earlier volume at 01:00 (UTC routers); the day's 12:00 gives 10 earlier hours.
    for (const [site, earlier] of [
      [steep, 1e9],
      [rise, AT_RISE + 1],
    ] as const) {
      await ok(site, '2026-11-22T01:00:00Z', 0);
      await ok(site, '2026-11-22T01:05:00Z', earlier);
      await ok(site, '2026-11-22T11:55:00Z', earlier);
    }
    await ok(steep, '2026-11-22T12:00:00Z', 1e9 + X - 1);
    await ok(rise, '2026-11-22T12:00:00Z', AT_RISE + 1 + X);
    expect(await usageOf(steep)).to.include({ accelerating: false, last_two_hours_gb: 5.369 });
    expect(await usageOf(rise)).to.include({ accelerating: false, acceleration_pct: 35 });
    expect(await t.alerts()).to.have.length(0);
    // One more byte each: 5 GiB exactly, and a rise of 35 percent exactly.
    await ok(steep, '2026-11-22T12:00:15Z', 1e9 + X);
    await ok(rise, '2026-11-22T12:00:15Z', AT_RISE + 2 + X);
    expect(await usageOf(steep)).to.include({ accelerating: true });
    expect(await usageOf(rise)).to.include({ accelerating: true, acceleration_pct: 35 });
    await runJob();
    const alerts = await t.alerts();
    expect(
      alerts.map((n) => [(n.data as { nas_id: string }).nas_id, (n.data as { alert: string }).alert]),
    ).to.deep.equal([
      [steep.nasId, 'ACCELERATION'],
      [rise.nasId, 'ACCELERATION'],
    ]);
    expect((alerts[1]!.data as { usage: unknown }).usage).to.deep.equal({
      daily_gb: 25.253,
      last_two_hours_gb: 5.369,
      acceleration_pct: 35,
    });
  });

  it('keeps exactly five preferences, shared with the bandwidth switch, and holds the push on them', async () => {
    const put = (body: unknown) =>
      t.t.request('PUT', '/api/v1/radius/qoe/preferences', { token: t.client.token, body });
    const defaults = {
      success: true,
      urgent_push: true,
      daily_report_push: true,
      usage_alert_push: true,
      quiet_start: null,
      quiet_end: null,
    };
    expect((await t.get('/preferences')).body).to.deep.equal(defaults);
    for (const bad of [
      { bandwidth_push: false },
      { urgent_push: 'no' },
      { quiet_start: 24 },
      { quiet_end: -1 },
      { quiet_start: 1.5 },
      { usage_alert_push: null },
      { urgent_push: false, other: 1 },
    ]) {
      const res = await put(bad);
      expect(res.status, JSON.stringify(bad)).to.equal(400);
      expect(res.body.code).to.equal('VALIDATION_ERROR');
    }
    expect((await t.get('/preferences')).body).to.deep.equal(defaults);
    // Quiet hours may wrap past midnight; what is absent stays.
    expect((await put({ quiet_start: 22, quiet_end: 6, daily_report_push: false })).body).to.deep.equal({
      ...defaults,
      daily_report_push: false,
      quiet_start: 22,
      quiet_end: 6,
    });
    const prefs = t.t.controller.services.bandwidth.preferences;
    expect(await prefs.get(t.client.id)).to.deep.equal({
      bandwidth_push: true,
      quiet_start: 22,
      quiet_end: 6,
    });
    await prefs.set(t.client.id, { bandwidth_push: false });
    expect((await t.get('/preferences')).body).to.include({ daily_report_push: false, quiet_start: 22 });
    expect((await put({ quiet_start: null })).body).to.include({ quiet_start: null, quiet_end: 6 });
    expect(await prefs.get(t.client.id)).to.include({ bandwidth_push: false, quiet_start: null });

    // usage_alert_push off, then urgent_push off: the alert is raised (once) but no push leaves.
    const a = await t.qoeSite('QOE-P1');
    const b = await t.qoeSite('QOE-P2');
    expect((await put({ usage_alert_push: false })).status).to.equal(200);
    await ok(a, '2026-11-22T10:00:00Z', 0);
    await ok(a, '2026-11-22T10:05:00Z', 100 * GIB);
    expect((await put({ usage_alert_push: true, urgent_push: false })).status).to.equal(200);
    await ok(b, '2026-11-22T10:00:00Z', 0);
    await ok(b, '2026-11-22T10:05:00Z', 100 * GIB);
    await runJob();
    expect(await t.alerts()).to.have.length(0);
    // Both on again: the day's alerts were raised already; the next day's goes out.
    expect((await put({ urgent_push: true })).status).to.equal(200);
    await ok(a, '2026-11-22T10:10:00Z', 101 * GIB);
    expect(await t.alerts()).to.have.length(0);
    await ok(a, '2026-11-23T10:00:00Z', 101 * GIB);
    await ok(a, '2026-11-23T10:05:00Z', 201 * GIB);
    expect((await t.alerts()).map((n) => (n.data as { date: string }).date)).to.deep.equal(['2026-11-23']);
  });
});
