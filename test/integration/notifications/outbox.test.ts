import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import type { TestController } from '../../support/test-controller.js';
import { FakePushSender, startWith } from './fixture.js';

forEachDatabase('notifications outbox and inbox', (database) => {
  let t: TestController;
  let sender: FakePushSender;
  let client: { token: string; id: string };
  beforeEach(async () => {
    sender = new FakePushSender();
    t = await startWith(database, { pushSender: sender });
    client = await t.account('client');
  });
  afterEach(async () => t.close());

  const notifications = () => t.controller.services.notifications;
  const rows = () =>
    t.db.db.selectFrom('notifications').selectAll().orderBy('created_at').orderBy('id').execute();
  const note = (over: Partial<Parameters<ReturnType<typeof notifications>['notify']>[0]> = {}) =>
    notifications().notify({
      recipientId: client.id,
      type: 'TEST_EVENT',
      title: 'Title',
      body: 'Body',
      data: { n: 1 },
      dedupKey: 'k1',
      channels: ['in_app', 'push'],
      ...over,
    });

  it('writes a notification once per recipient, type and key', async () => {
    const first = await note();
    expect(first.created).to.equal(true);
    const again = await note({ title: 'Other title' });
    expect(again).to.deep.equal({ created: false, id: first.id });
    expect(await rows()).to.have.length(1);
    expect((await rows())[0]).to.include({ title: 'Title', push_state: 'PENDING', in_app: 1, push: 1 });

    // Another type, another key, another recipient: new rows.
    const other = await t.account('client');
    expect((await note({ type: 'OTHER_EVENT' })).created).to.equal(true);
    expect((await note({ dedupKey: 'k2' })).created).to.equal(true);
    expect((await note({ recipientId: other.id })).created).to.equal(true);
    expect(await rows()).to.have.length(4);
    const data = JSON.parse((await rows())[0]!.data);
    expect(data).to.deep.equal({ n: 1, type: 'TEST_EVENT' });
  });

  it('records the channels: in-app only skips the push, push only stays out of the inbox', async () => {
    await note({ dedupKey: 'inapp', channels: ['in_app'] });
    await note({ dedupKey: 'push', channels: ['push'] });
    const [inApp, pushOnly] = await rows();
    expect(inApp).to.include({ in_app: 1, push: 0, push_state: 'SKIPPED', push_next_at: null });
    expect(pushOnly).to.include({ in_app: 0, push: 1, push_state: 'PENDING' });
    const inbox = await t.request('GET', '/api/v1/notifications', { token: client.token });
    expect(inbox.body.data.map((n: { id: string }) => n.id)).to.deep.equal([inApp!.id]);
    expect(inbox.body.data[0].channels).to.deep.equal(['in_app']);
  });

  it('holds a push back during quiet hours (the inbox shows it at once)', async () => {
    // START_TIME is 08:00 UTC, inside 07:00-09:00.
    await note({ quietHours: { start: '07:00', end: '09:00' } });
    await note({ dedupKey: 'k2', quietHours: { start: '22:00', end: '07:00' } });
    const [held, free] = await rows();
    expect(held).to.include({
      not_before: '2026-11-21T09:00:00.000Z',
      push_next_at: '2026-11-21T09:00:00.000Z',
    });
    expect(free).to.include({ not_before: null });
    await t.controller.services.scheduler.runNow('NOTIFICATIONS_PUSH');
    expect(sender.sent.map((s) => s.message.data.type)).to.have.length(1);
    t.clock.set(new Date('2026-11-21T09:00:00.000Z'));
    await t.controller.services.scheduler.runNow('NOTIFICATIONS_PUSH');
    expect(sender.sent).to.have.length(2);
    expect(
      (await t.request('GET', '/api/v1/notifications', { token: client.token })).body.data,
    ).to.have.length(2);
  });

  it('lists the inbox newest first with the unread count, and pages', async () => {
    for (let i = 1; i <= 3; i++) {
      await note({ dedupKey: `k${i}`, title: `T${i}` });
      t.clock.advance(1000);
    }
    const all = await t.request('GET', '/api/v1/notifications', { token: client.token });
    expect(all.status).to.equal(200);
    expect(all.body.success).to.equal(true);
    expect(all.body.unread_count).to.equal(3);
    expect(all.body.data.map((n: { title: string }) => n.title)).to.deep.equal(['T3', 'T2', 'T1']);
    expect(all.body.data[0]).to.include({ type: 'TEST_EVENT', body: 'Body', read: false, read_at: null });
    expect(all.body.data[0].data).to.deep.equal({ n: 1, type: 'TEST_EVENT' });
    expect(all.body.data[0].channels).to.deep.equal(['in_app', 'push']);

    const page = await t.request('GET', '/api/v1/notifications?limit=1&offset=1', { token: client.token });
    expect(page.body.data.map((n: { title: string }) => n.title)).to.deep.equal(['T2']);
    expect(page.body.unread_count).to.equal(3);

    // Another account sees none of them.
    const other = await t.account('client');
    const theirs = await t.request('GET', '/api/v1/notifications', { token: other.token });
    expect(theirs.body).to.deep.equal({ success: true, data: [], unread_count: 0 });
  });

  it('marks one read (keeping the first read time), then all; unread filters', async () => {
    const a = await note({ dedupKey: 'a' });
    await note({ dedupKey: 'b' });
    await note({ dedupKey: 'c' });
    t.clock.advance(5000);
    const read = await t.request('POST', `/api/v1/notifications/${a.id}/read`, { token: client.token });
    expect(read.status).to.equal(200);
    expect(read.body.data).to.include({ id: a.id, read: true, read_at: t.clock.now().toISOString() });
    expect(read.body.unread_count).to.equal(2);
    const firstReadAt = read.body.data.read_at;
    t.clock.advance(5000);
    const again = await t.request('POST', `/api/v1/notifications/${a.id}/read`, { token: client.token });
    expect(again.body.data.read_at).to.equal(firstReadAt);

    const unread = await t.request('GET', '/api/v1/notifications?unread=true', { token: client.token });
    expect(unread.body.data).to.have.length(2);
    expect(unread.body.data.every((n: { read: boolean }) => !n.read)).to.equal(true);
    const bare = await t.request('GET', '/api/v1/notifications?unread', { token: client.token });
    expect(bare.body.data).to.have.length(2);
    const everything = await t.request('GET', '/api/v1/notifications?unread=false', { token: client.token });
    expect(everything.body.data).to.have.length(3);

    const all = await t.request('POST', '/api/v1/notifications/read-all', { token: client.token });
    expect(all.body).to.deep.equal({ success: true, updated: 2, unread_count: 0 });
    const none = await t.request('POST', '/api/v1/notifications/read-all', { token: client.token, body: {} });
    expect(none.body).to.deep.equal({ success: true, updated: 0, unread_count: 0 });
    expect((await rows()).find((r) => r.id === a.id)!.read_at).to.equal(firstReadAt);
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const a = await note();
    const other = await t.account('client');
    const before = await rows();
    const cases: [string, string, { body?: unknown; raw?: string; token?: string }, number, string][] = [
      ['GET', '/api/v1/notifications?unread=maybe', {}, 400, 'VALIDATION_ERROR'],
      ['GET', '/api/v1/notifications?limit=0', {}, 400, 'VALIDATION_ERROR'],
      ['GET', '/api/v1/notifications?limit=abc', {}, 400, 'VALIDATION_ERROR'],
      ['GET', '/api/v1/notifications?limit=201', {}, 400, 'VALIDATION_ERROR'],
      ['GET', '/api/v1/notifications?offset=-1', {}, 400, 'VALIDATION_ERROR'],
      ['POST', '/api/v1/notifications/read-all', { body: { before: 'now' } }, 400, 'VALIDATION_ERROR'],
      ['POST', '/api/v1/notifications/read-all', { raw: '{bad json' }, 400, 'INVALID_JSON'],
      ['POST', `/api/v1/notifications/${a.id}/read`, { body: { read: true } }, 400, 'VALIDATION_ERROR'],
      ['POST', '/api/v1/notifications/not-an-id/read', {}, 404, 'NOTIFICATION_NOT_FOUND'],
      [
        'POST',
        '/api/v1/notifications/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/read',
        {},
        404,
        'NOTIFICATION_NOT_FOUND',
      ],
      // Another account's notification is "not found", never "forbidden".
      ['POST', `/api/v1/notifications/${a.id}/read`, { token: other.token }, 404, 'NOTIFICATION_NOT_FOUND'],
      ['GET', '/api/v1/notifications', { token: 'not-a-token' }, 401, 'UNAUTHENTICATED'],
      ['POST', '/api/v1/notifications/read-all', { token: '' }, 401, 'UNAUTHENTICATED'],
    ];
    for (const [method, url, opts, status, code] of cases) {
      const headers = opts.raw ? { 'content-type': 'application/json' } : undefined;
      const token = opts.token === '' ? undefined : (opts.token ?? client.token);
      const res = await t.request(method, url, { ...opts, token, headers });
      expect(res.status, `${method} ${url}`).to.equal(status);
      expect(res.body.success, `${method} ${url}`).to.equal(false);
      expect(res.body.error.code, `${method} ${url}`).to.equal(code);
      if (code === 'VALIDATION_ERROR') expect(res.body.details).to.be.an('array').that.is.not.empty;
    }
    expect(await rows()).to.deep.equal(before);
  });

  describe('device tokens', () => {
    const TOKEN = 'fcm-token-aaaaaaaaaaaaaaaaaaaaaaaa:APA91b';
    const devices = () => t.db.db.selectFrom('notification_devices').selectAll().execute();

    it('registers a token, updates it, and moves it to the account that registers it last', async () => {
      const res = await t.request('PUT', '/api/v1/notifications/devices', {
        token: client.token,
        body: { token: TOKEN, platform: 'android' },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        success: true,
        data: {
          platform: 'android',
          registered_at: t.clock.now().toISOString(),
          updated_at: t.clock.now().toISOString(),
        },
      });
      expect(await notifications().tokensOf(client.id)).to.deep.equal([TOKEN]);

      t.clock.advance(60_000);
      const again = await t.request('PUT', '/api/v1/notifications/devices', {
        token: client.token,
        body: { token: TOKEN, platform: 'ios' },
      });
      expect(again.body.data.platform).to.equal('ios');
      expect(again.body.data.registered_at).to.equal(res.body.data.registered_at);
      expect(await devices()).to.have.length(1);

      const other = await t.account('client');
      await t.request('PUT', '/api/v1/notifications/devices', {
        token: other.token,
        body: { token: TOKEN, platform: 'android' },
      });
      expect(await notifications().tokensOf(client.id)).to.deep.equal([]);
      expect(await notifications().tokensOf(other.id)).to.deep.equal([TOKEN]);
    });

    it('refuses a malformed registration and stores nothing', async () => {
      const bodies: unknown[] = [
        {},
        { platform: 'android' },
        { token: TOKEN },
        { token: 'short', platform: 'android' },
        { token: 'has spaces in the middle of it', platform: 'android' },
        { token: 'x'.repeat(1025), platform: 'android' },
        { token: TOKEN, platform: 'symbian' },
        { token: 42, platform: 'android' },
        { token: TOKEN, platform: 'android', user_id: 'someone-else' },
        [TOKEN],
      ];
      for (const body of bodies) {
        const res = await t.request('PUT', '/api/v1/notifications/devices', { token: client.token, body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error.code).to.equal('VALIDATION_ERROR');
        expect(res.body.details).to.be.an('array').that.is.not.empty;
      }
      const anonymous = await t.request('PUT', '/api/v1/notifications/devices', {
        body: { token: TOKEN, platform: 'android' },
      });
      expect(anonymous.status).to.equal(401);
      expect(await devices()).to.deep.equal([]);
    });
  });
});
