// RADIUS volumes for targeted users (max, not sum) and the push preference, behind fake agents.
// Adaptive caps on quota and peak, quiet hours in the router's zone and the impact report run end
// to end through simulated routers and real agents (test/e2e/bandwidth-adaptive.test.ts).
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startBandwidthTest, type BwSite, type BwTest } from './bandwidth-fixture.js';

const GB = 1e9;

forEachDatabase('bandwidth targeted users from RADIUS and the push preference', (database) => {
  let t: BwTest;
  let site: BwSite;
  beforeEach(async () => {
    t = await startBandwidthTest(database);
    site = await t.bwSite('BWADA001');
  });
  afterEach(async () => t?.t.close());

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
});
