import { expect } from 'chai';
import { loadConfig } from '../../../controller/config.js';
import type { RadiusAuthLogTable } from '../../../controller/radius/tables.js';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

const DAY = '2026-11-21';

forEachDatabase('RADIUS_AFFLUENCE daily report', (database) => {
  let t: TestController;
  afterEach(async () => t?.close());

  async function setup(overrides: Record<string, unknown> = {}) {
    t = await startTestController(database, overrides);
    const admin = await t.admin();
    const busy = await t.account('client');
    const refusedOnly = await t.account('client');
    const idle = await t.account('client');
    const yesterdayOnly = await t.account('client');
    const row = (client_id: string, at: string, extra: Partial<RadiusAuthLogTable> = {}) => ({
      client_id,
      nas_id: 'nas-1',
      username: 'code1',
      result: 'ACCEPT' as const,
      reason: null,
      calling_station_id: 'AA:BB:CC:00:00:01',
      at,
      ...extra,
    });
    await t.db.db
      .insertInto('radius_auth_log')
      .values([
        row(busy.id, `${DAY}T09:10:00.000Z`),
        row(busy.id, `${DAY}T18:10:00.000Z`, { calling_station_id: 'AA:BB:CC:00:00:02' }),
        row(busy.id, `${DAY}T18:20:00.000Z`, { calling_station_id: 'AA:BB:CC:00:00:03' }),
        row(busy.id, `${DAY}T18:30:00.000Z`, { result: 'REJECT', reason: 'BAD_PASSWORD' }),
        row(refusedOnly.id, `${DAY}T07:00:00.000Z`, { result: 'REJECT', reason: 'UNKNOWN_USER' }),
        row(yesterdayOnly.id, '2026-11-20T18:00:00.000Z'),
      ])
      .execute();
    return { admin, busy, refusedOnly, idle, yesterdayOnly };
  }

  const setClock = (token: string, now: string) =>
    t.request('PUT', '/api/v1/admin/clock', { token, body: { now } });
  const runJob = (token: string) => t.request('POST', '/api/v1/admin/jobs/RADIUS_AFFLUENCE/run', { token });
  const reports = () =>
    t.db.db
      .selectFrom('notifications')
      .selectAll()
      .where('type', '=', 'RADIUS_AFFLUENCE')
      .orderBy('client_id')
      .execute();

  it('notifies each client with activity that day, once, and nobody else', async () => {
    const { admin, busy, refusedOnly, idle, yesterdayOnly } = await setup();
    expect((await setClock(admin.token, `${DAY}T20:00:00.000Z`)).status).to.equal(200);
    const first = await runJob(admin.token);
    expect(first.status).to.equal(200);
    expect(first.body.data).to.include({ name: 'RADIUS_AFFLUENCE', status: 'OK' });
    expect(first.body.data.result).to.deep.equal({ date: DAY, active_clients: 2, sent: 2, failed: 0 });

    const rows = await reports();
    expect(rows.map((r) => r.client_id).sort()).to.deep.equal([busy.id, refusedOnly.id].sort());
    const mine = rows.find((r) => r.client_id === busy.id)!;
    expect(mine).to.include({
      dedup_key: `affluence:${DAY}`,
      title: 'Affluence du 21/11/2026',
      body: '3 connexions, 3 clients, pic à 18:00 (2 connexions), 1 refus.',
      in_app: 1,
      push: 1,
      push_state: 'PENDING',
    });
    expect(JSON.parse(mine.data)).to.deep.equal({
      type: 'RADIUS_AFFLUENCE',
      date: DAY,
      connexions: 3,
      clients: 3,
      refus: 1,
      pic_heure: 18,
      pic_connexions: 2,
      boucles: 0,
    });
    const refused = rows.find((r) => r.client_id === refusedOnly.id)!;
    expect(refused.body).to.equal('0 connexion, 0 client, pas de pic, 1 refus.');

    // The client's inbox shows it; the idle client and yesterday's client have nothing.
    const inbox = await t.request('GET', '/api/v1/notifications', { token: busy.token });
    expect(inbox.body.data.map((n: { type: string }) => n.type)).to.deep.equal(['RADIUS_AFFLUENCE']);
    for (const quiet of [idle, yesterdayOnly]) {
      const theirs = await t.request('GET', '/api/v1/notifications', { token: quiet.token });
      expect(theirs.body.data).to.deep.equal([]);
    }

    // A second run the same day sends nothing new.
    t.clock.advance(60 * 60_000);
    const second = await runJob(admin.token);
    expect(second.body.data.result).to.deep.equal({ date: DAY, active_clients: 2, sent: 0, failed: 0 });
    expect(await reports()).to.have.length(2);
  });

  it('runs on its own at 20:00 UTC from the scheduler', async () => {
    const { admin } = await setup();
    const { scheduler } = t.controller.services;
    await setClock(admin.token, `${DAY}T19:59:59.000Z`);
    expect((await scheduler.tick()).map((r) => r.name)).to.not.include('RADIUS_AFFLUENCE');
    await setClock(admin.token, `${DAY}T20:00:00.000Z`);
    const runs = await scheduler.tick();
    expect(runs.find((r) => r.name === 'RADIUS_AFFLUENCE')).to.include({ status: 'OK' });
    expect(await reports()).to.have.length(2);
    // Next due the following day at 20:00.
    const lease = (await scheduler.list()).find((l) => l.name === 'RADIUS_AFFLUENCE');
    expect(lease!.next_run_at).to.equal('2026-11-22T20:00:00.000Z');
  });

  it('sends nothing when RADIUS_AFFLUENCE_REPORT_ENABLED is off', async () => {
    const { admin } = await setup({ radiusAffluenceReportEnabled: false });
    await setClock(admin.token, `${DAY}T20:00:00.000Z`);
    const run = await runJob(admin.token);
    expect(run.body.data).to.include({ name: 'RADIUS_AFFLUENCE', status: 'SKIPPED' });
    expect(await reports()).to.deep.equal([]);
  });
});

describe('RADIUS flags in the configuration', () => {
  it('default to true', () => {
    expect(loadConfig({})).to.include({
      radiusAffluenceReportEnabled: true,
      radiusMigrationWatchEnabled: true,
      radiusReadyAutoConfirmEnabled: true,
    });
  });

  it('read the RADIUS_ flag names, the TICKETNET_ names winning', () => {
    const config = loadConfig({
      RADIUS_AFFLUENCE_REPORT_ENABLED: 'false',
      RADIUS_MIGRATION_WATCH_ENABLED: '0',
      RADIUS_READY_AUTO_CONFIRM_ENABLED: 'off',
    });
    expect(config).to.include({
      radiusAffluenceReportEnabled: false,
      radiusMigrationWatchEnabled: false,
      radiusReadyAutoConfirmEnabled: false,
    });
    const both = loadConfig({
      RADIUS_AFFLUENCE_REPORT_ENABLED: 'false',
      TICKETNET_RADIUS_AFFLUENCE_REPORT_ENABLED: 'true',
    });
    expect(both.radiusAffluenceReportEnabled).to.equal(true);
    expect(() => loadConfig({ RADIUS_AFFLUENCE_REPORT_ENABLED: 'maybe' })).to.throw(
      /TICKETNET_RADIUS_AFFLUENCE_REPORT_ENABLED/,
    );
  });
});
