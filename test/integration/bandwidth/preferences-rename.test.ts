// 0074 gives the notification preferences their product name, qoe_notification_preferences. A
// database that kept them as bandwidth_preferences keeps every row through the rename, and the
// manager sees the same switches and quiet hours afterwards; a fresh database has only the new name.
import { expect } from 'chai';
import { sql } from 'kysely';
import { newId } from '../../../controller/core/ids.js';
import { hashPassword } from '../../../controller/core/password.js';
import { listTables } from '../../../controller/db/migrate.js';
import { forEachDatabase } from '../../support/databases.js';
import { openMigratedBefore } from '../../support/migrated-before.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

const RENAME = '0074-qoe-notification-preferences';
const AT = '2026-11-20T10:00:00.000Z';
const PASSWORD = 'passw0rd-ok';

forEachDatabase('migration 0074: notification preferences renamed', (database) => {
  let t: TestController | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('keeps every row of bandwidth_preferences, and the manager sees the same preferences', async () => {
    const handle = await openMigratedBefore(database, RENAME);
    const quiet = { id: newId(), email: 'quiet@example.com' };
    const plain = { id: newId(), email: 'plain@example.com' };
    const passwordHash = await hashPassword(PASSWORD);
    for (const a of [quiet, plain])
      await sql`insert into accounts (id, email, password_hash, name, kind, created_at)
        values (${a.id}, ${a.email}, ${passwordHash}, 'A client', 'client', ${AT})`.execute(handle.db);
    // One row with every switch set by hand; one written by the bandwidth route alone (defaults).
    await sql`insert into bandwidth_preferences (client_id, bandwidth_push, quiet_start, quiet_end,
        urgent_push, daily_report_push, usage_alert_push, updated_at)
      values (${quiet.id}, 0, 22, 6, 0, 1, 0, ${AT})`.execute(handle.db);
    await sql`insert into bandwidth_preferences (client_id, bandwidth_push, quiet_start, quiet_end, updated_at)
      values (${plain.id}, 1, null, null, ${AT})`.execute(handle.db);

    t = await startTestController({ name: database.name, open: async () => handle });
    const tables = await listTables(handle.db, handle.caps);
    expect(tables).to.include('qoe_notification_preferences');
    expect(tables).to.not.include('bandwidth_preferences');

    const admin = await t.admin();
    const seen = async (email: string) => {
      const login = await t!.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
      expect(login.status, JSON.stringify(login.body)).to.equal(200);
      const account = login.body.data.account as { id: string };
      const licence = await t!.request('POST', '/api/v1/admin/licences', {
        token: admin.token,
        body: { client_id: account.id, plan_code: 'RADIUS_ANNUAL' },
      });
      expect(licence.status, JSON.stringify(licence.body)).to.equal(201);
      const res = await t!.request('GET', '/api/v1/radius/qoe/preferences', { token: login.body.data.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    };
    expect(await seen(quiet.email)).to.deep.equal({
      success: true,
      urgent_push: false,
      daily_report_push: true,
      usage_alert_push: false,
      quiet_start: 22,
      quiet_end: 6,
    });
    expect(await seen(plain.email)).to.deep.equal({
      success: true,
      urgent_push: true,
      daily_report_push: true,
      usage_alert_push: true,
      quiet_start: null,
      quiet_end: null,
    });
    const prefs = t.controller.services.bandwidth.preferences;
    expect(await prefs.get(quiet.id)).to.deep.equal({ bandwidth_push: false, quiet_start: 22, quiet_end: 6 });
    expect(await prefs.get(plain.id)).to.deep.equal({
      bandwidth_push: true,
      quiet_start: null,
      quiet_end: null,
    });

    // Written again after the rename: the same row changes, none is added.
    await prefs.setQoe(quiet.id, { usage_alert_push: true });
    const rows = await handle.db
      .selectFrom('qoe_notification_preferences')
      .select(['client_id', 'bandwidth_push', 'usage_alert_push'])
      .orderBy('client_id')
      .execute();
    expect(rows).to.have.deep.members([
      { client_id: quiet.id, bandwidth_push: 0, usage_alert_push: 1 },
      { client_id: plain.id, bandwidth_push: 1, usage_alert_push: 1 },
    ]);
  });

  it('creates only qoe_notification_preferences on a fresh database', async () => {
    t = await startTestController(database);
    const tables = await listTables(t.db.db, t.db.caps);
    expect(tables).to.include('qoe_notification_preferences');
    expect(tables).to.not.include('bandwidth_preferences');
  });
});
