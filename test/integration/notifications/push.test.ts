import { expect } from 'chai';
import { pino } from 'pino';
import { PushDispatcher, retryDelayMs } from '../../../controller/modules/notifications/push-dispatcher.js';
import { PushRejected } from '../../../controller/modules/notifications/push-sender.js';
import { forEachDatabase } from '../../support/databases.js';
import type { TestController } from '../../support/test-controller.js';
import { FakePushSender, startWith } from './fixture.js';

const MIN = 60_000;

forEachDatabase('notifications push job', (database) => {
  let t: TestController;
  let sender: FakePushSender;
  let client: { token: string; id: string };
  let admin: { token: string };
  beforeEach(async () => {
    sender = new FakePushSender();
    t = await startWith(database, { pushSender: sender });
    client = await t.account('client');
    admin = await t.admin();
  });
  afterEach(async () => t.close());

  const notify = (dedupKey: string, channels: ('in_app' | 'push')[] = ['in_app', 'push']) =>
    t.controller.services.notifications.notify({
      recipientId: client.id,
      type: 'TEST_EVENT',
      title: 'Hello',
      body: 'World',
      data: { count: 3, ok: true, none: null, label: 'x' },
      dedupKey,
      channels,
    });
  const run = async () => {
    const res = await t.request('POST', '/api/v1/admin/jobs/NOTIFICATIONS_PUSH/run', { token: admin.token });
    expect(res.status).to.equal(200);
    return res.body.data;
  };
  const row = (id: string) =>
    t.db.db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('sends a pending push once, with data.type and string values, and records it', async () => {
    const { id } = await notify('a');
    await notify('b', ['in_app']);
    const first = await run();
    expect(first).to.include({ name: 'NOTIFICATIONS_PUSH', status: 'OK' });
    expect(first.result).to.deep.equal({ sent: 1, retrying: 0, failed: 0, skipped: 0 });
    expect(sender.sent).to.deep.equal([
      {
        recipientId: client.id,
        message: {
          title: 'Hello',
          body: 'World',
          data: { count: '3', ok: 'true', label: 'x', type: 'TEST_EVENT' },
        },
      },
    ]);
    expect(await row(id)).to.include({
      push_state: 'SENT',
      push_attempts: 1,
      push_sent_at: t.clock.now().toISOString(),
      push_error: null,
      push_claim: null,
    });
    expect((await run()).result).to.deep.equal({ sent: 0, retrying: 0, failed: 0, skipped: 0 });
    expect(sender.sent).to.have.length(1);
  });

  it('retries a failed push with backoff, then succeeds', async () => {
    sender.behaviours = ['fail', 'fail', 'ok'];
    const { id } = await notify('a');
    expect((await run()).result).to.include({ retrying: 1 });
    let r = await row(id);
    expect(r).to.include({ push_state: 'PENDING', push_attempts: 1, push_error: 'provider down' });
    expect(r.push_next_at).to.equal(new Date(t.clock.now().getTime() + 30_000).toISOString());

    // Not due yet: nothing is tried.
    t.clock.advance(29_000);
    await run();
    expect(sender.calls).to.equal(1);
    t.clock.advance(1_000);
    await run();
    r = await row(id);
    expect(r).to.include({ push_state: 'PENDING', push_attempts: 2 });
    expect(r.push_next_at).to.equal(new Date(t.clock.now().getTime() + 2 * MIN).toISOString());
    t.clock.advance(2 * MIN);
    expect((await run()).result).to.include({ sent: 1 });
    expect(await row(id)).to.include({ push_state: 'SENT', push_attempts: 3, push_error: null });
  });

  it('gives up after five attempts: FAILED, never tried again', async () => {
    sender.behaviours = ['fail'];
    const { id } = await notify('a');
    for (let attempt = 1; attempt <= 5; attempt++) {
      await run();
      expect((await row(id)).push_attempts).to.equal(attempt);
      t.clock.advance(retryDelayMs(attempt));
    }
    expect(await row(id)).to.include({ push_state: 'FAILED', push_attempts: 5, push_next_at: null });
    t.clock.advance(24 * 60 * MIN);
    await run();
    expect(sender.calls).to.equal(5);
  });

  it('records SKIPPED when there is nowhere to send, FAILED at once when the provider refuses', async () => {
    sender.behaviours = ['skip', () => Promise.reject(new PushRejected('FCM 400 INVALID_ARGUMENT'))];
    const a = await notify('a');
    const b = await notify('b');
    expect((await run()).result).to.deep.equal({ sent: 0, retrying: 0, failed: 1, skipped: 1 });
    expect(await row(a.id)).to.include({ push_state: 'SKIPPED', push_error: 'NO_DEVICE', push_attempts: 1 });
    expect(await row(b.id)).to.include({ push_state: 'FAILED', push_error: 'FCM 400 INVALID_ARGUMENT' });
  });

  it('never lets two runs send the same row; a lapsed claim is sent again', async () => {
    for (let i = 0; i < 12; i++) await notify(`k${i}`);
    const logger = pino({ level: 'silent' });
    const other = await t.db.openAnother();
    try {
      const d1 = new PushDispatcher(t.db.db, t.clock, sender, logger, { batch: 3 });
      const d2 = new PushDispatcher(other.db, t.clock, sender, logger, { batch: 3 });
      const [r1, r2] = await Promise.all([d1.run(t.clock.now()), d2.run(t.clock.now())]);
      expect(r1.sent + r2.sent).to.equal(12);
      expect(sender.sent).to.have.length(12);
    } finally {
      await other.close();
    }

    // A run that claimed a row and died: the row waits for the claim to lapse, then goes.
    const { id } = await notify('crashed');
    await t.db.db
      .updateTable('notifications')
      .set({
        push_claim: 'dead-run',
        push_claim_until: new Date(t.clock.now().getTime() + MIN).toISOString(),
      })
      .where('id', '=', id)
      .execute();
    await run();
    expect((await row(id)).push_state).to.equal('PENDING');
    t.clock.advance(MIN);
    await run();
    expect(await row(id)).to.include({ push_state: 'SENT', push_claim: null });
  });
});
