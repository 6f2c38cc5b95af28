// The daily report: made at 23:59 of the PRIMARY router's day, once whatever the replays, with
// usage, RTT, loss, congestion, top consumers and alerts; the push waits for the quiet hours' end,
// and `daily_report_push` false keeps the report without a push; a missed 23:59 is caught up.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startQoeTest, type QoeTest } from './qoe-fixture.js';

const GIB = 2 ** 30;

forEachDatabase('qoe daily report', (database) => {
  let t: QoeTest;
  beforeEach(async () => (t = await startQoeTest(database)));
  afterEach(async () => t?.t.close());

  it('is made once at 23:59 router time, read newest first, pushed after quiet hours or not at all', async () => {
    const admin = await t.t.admin();
    const runAt = async (at: string) => {
      t.t.clock.set(new Date(at));
      const res = await t.t.request('POST', '/api/v1/admin/jobs/QOE_DAILY_REPORT/run', {
        token: admin.token,
      });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
    };
    const reportPushes = async () =>
      t.t.db.db
        .selectFrom('notifications')
        .select(['dedup_key', 'not_before'])
        .where('client_id', '=', t.client.id)
        .where('type', '=', 'QOE_DAILY_REPORT')
        .orderBy('created_at')
        .execute();
    const a = await t.qoeSite('QOE-REP');
    await t.t.controller.services.usage.recordTimeZone(t.client.id, a.allocationId, 'Africa/Lagos');
    const send = async (at: string, total: number, extra: Record<string, unknown>) => {
      t.t.clock.set(new Date(at));
      expect((await t.point(a, at, total, extra)).status).to.equal(202);
    };
    await send('2026-11-22T10:00:00Z', 0, {
      top_consumers: [{ username: 'ali', ip: '10.5.50.2', rx_bps: 1000 }],
    });
    await send('2026-11-22T10:05:00Z', 100 * GIB, {
      rtt_ms: 1000,
      packet_loss_pct: 4,
      top_consumers: [
        { username: 'ali', ip: '10.5.50.2', rx_bps: 5000 },
        { username: 'bea', ip: '10.5.50.3', rx_bps: 3000 },
      ],
    });
    // Quiet hours 22 to 6, router time.
    expect(
      (
        await t.t.request('PUT', '/api/v1/radius/qoe/preferences', {
          token: t.client.token,
          body: { quiet_start: 22, quiet_end: 6 },
        })
      ).status,
    ).to.equal(200);
    await runAt('2026-11-22T22:58:00Z'); // 23:58 in Lagos
    expect((await t.get('/reports')).body.reports).to.deep.equal([]);
    await runAt('2026-11-22T22:59:00Z'); // 23:59
    await runAt('2026-11-22T22:59:30Z');
    let reports = (await t.get('/reports')).body.reports;
    expect(reports).to.have.length(1);
    expect(reports[0]).to.deep.include({ date: '2026-11-22', pushed: true });
    expect(reports[0].summary).to.deep.equal({
      date: '2026-11-22',
      timezone: 'Africa/Lagos',
      nas: [
        {
          nas_id: a.nasId,
          name: reports[0].summary.nas[0].name,
          daily_gb: 107.374,
          rtt_ms_avg: 800,
          packet_loss_pct_avg: 3,
          rtt_baseline_ms: 600,
          points: 2,
          congested_points: 1,
          top_consumers: [
            { username: 'ali', ip: '10.5.50.2', rx_bps: 5000 },
            { username: 'bea', ip: '10.5.50.3', rx_bps: 3000 },
          ],
        },
      ],
      alerts: [
        {
          nas_id: a.nasId,
          type: 'DAILY',
          raised_at: '2026-11-22T10:05:00.000Z',
          usage: { daily_gb: 107.374, last_two_hours_gb: 107.374, acceleration_pct: null },
        },
      ],
    });
    // The push waits for 06:00 in Lagos (05:00 UTC).
    expect(await reportPushes()).to.deep.equal([
      { dedup_key: '2026-11-22', not_before: '2026-11-23T05:00:00.000Z' },
    ]);

    // daily_report_push false: the report is kept, nothing is sent.
    expect(
      (
        await t.t.request('PUT', '/api/v1/radius/qoe/preferences', {
          token: t.client.token,
          body: { daily_report_push: false },
        })
      ).status,
    ).to.equal(200);
    await runAt('2026-11-23T22:59:00Z');
    // A 23:59 missed (controller down) is made in the first hour of the next day.
    await runAt('2026-11-24T23:30:00Z'); // 00:30 on the 25th in Lagos
    reports = (await t.get('/reports')).body.reports;
    expect(reports.map((r: { date: string; pushed: boolean }) => [r.date, r.pushed])).to.deep.equal([
      ['2026-11-24', false],
      ['2026-11-23', false],
      ['2026-11-22', true],
    ]);
    expect(reports[1].summary.nas[0]).to.include({ daily_gb: 0, points: 0, rtt_ms_avg: null });
    expect(await reportPushes()).to.have.length(1);
    const limited = await t.get('/reports?limit=1');
    expect(limited.body.reports.map((r: { date: string }) => r.date)).to.deep.equal(['2026-11-24']);
    for (const bad of ['0', '101', 'x']) expect((await t.get(`/reports?limit=${bad}`)).status).to.equal(400);
  });
});
