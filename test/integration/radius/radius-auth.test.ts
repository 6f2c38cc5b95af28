import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { mikrotik } from '../../support/radius-client.js';
import { makeTickets, startHarness, type Harness } from './radius-harness.js';

const GIB = 2 ** 30;

forEachDatabase('RADIUS authentication', (database) => {
  let h: Harness;
  beforeEach(async () => (h = await startHarness(database)));
  afterEach(async () => h.close());

  const ticketRow = (code: string) =>
    h.t.db.db.selectFrom('radius_tickets').selectAll().where('code', '=', code).executeTakeFirstOrThrow();
  const authLog = async () => {
    await h.t.controller.services.radius.flush();
    return h.t.db.db.selectFrom('radius_auth_log').selectAll().orderBy('at').execute();
  };

  it('accepts a PAP voucher with the MikroTik limits, signed, and moves it ACTIVE → USED', async () => {
    const [code] = await makeTickets(h, { data: 10 * GIB, time: 3600, validity: 86_400 });
    const events: unknown[] = [];
    h.t.controller.services.radius.onAccepted((e) => events.push(e));
    const { auth } = h.client();

    const reply = await auth.pap(code!, code!, [['Calling-Station-Id', 'AA:BB:CC:00:11:22']]);
    expect(reply?.code).to.equal('Access-Accept');
    expect(reply!.authentic).to.equal(true);
    expect(reply!.messageAuthenticator).to.equal('valid');
    expect(reply!.attributeTypes[0], 'Message-Authenticator first').to.equal(80);
    expect(reply!.attributes['Session-Timeout']).to.equal(3600);
    expect(reply!.attributes['Acct-Interim-Interval']).to.equal(300);
    expect(mikrotik(reply!)).to.deep.equal({
      'Mikrotik-Rate-Limit': '2M/2M',
      'Mikrotik-Total-Limit': (10 * GIB) % 2 ** 32,
      'Mikrotik-Total-Limit-Gigawords': 2,
    });

    const row = await ticketRow(code!);
    expect(row).to.include({
      status: 'USED',
      used_at: h.t.clock.now().toISOString(),
      first_nas_id: h.nasEntry.nasId,
      expires_at: new Date(h.t.clock.now().getTime() + 86_400_000).toISOString(),
    });
    expect(events).to.deep.equal([
      {
        clientId: h.tenant.id,
        nasId: h.nasEntry.nasId,
        username: code,
        at: h.t.clock.now(),
        firstUse: true,
        callingStationId: 'AA:BB:CC:00:11:22',
      },
    ]);

    // A second authentication is no first use; the status and used_at stay.
    h.t.clock.advance(60_000);
    expect((await auth.pap(code!, code!))?.code).to.equal('Access-Accept');
    expect((await ticketRow(code!)).used_at).to.equal(row.used_at);
    const log = await authLog();
    expect(log.map((l) => [l.result, l.reason, l.username, l.nas_id, l.client_id])).to.deep.equal([
      ['ACCEPT', 'FIRST_USE', code, h.nasEntry.nasId, h.tenant.id],
      ['ACCEPT', null, code, h.nasEntry.nasId, h.tenant.id],
    ]);
    expect(log[0]!.calling_station_id).to.equal('AA:BB:CC:00:11:22');
  });

  it('rejects a wrong password and an unknown code alike, changing nothing', async () => {
    const [code] = await makeTickets(h, {});
    const { auth } = h.client();
    for (const [user, pw] of [
      [code!, 'wrong-pw'],
      ['nosuchcode', 'nosuchcode'],
      ['', 'x'],
    ]) {
      const reply = await auth.pap(user!, pw!);
      expect(reply?.code, `${user}/${pw}`).to.equal('Access-Reject');
      expect(reply!.authentic).to.equal(true);
      expect(reply!.messageAuthenticator).to.equal('valid');
      expect(reply!.attributes['Reply-Message']).to.equal('Invalid code or password');
    }
    expect((await ticketRow(code!)).status).to.equal('ACTIVE');
    expect((await authLog()).map((l) => l.reason)).to.deep.equal([
      'BAD_PASSWORD',
      'UNKNOWN_USER',
      'UNKNOWN_USER',
    ]);
  });

  it('accepts CHAP with the right password and rejects it with a wrong one', async () => {
    const [code] = await makeTickets(h, {});
    const { auth } = h.client();
    expect((await auth.chap(code!, 'not-it'))?.code).to.equal('Access-Reject');
    expect((await ticketRow(code!)).status).to.equal('ACTIVE');
    const reply = await auth.chap(code!, code!);
    expect(reply?.code).to.equal('Access-Accept');
    expect(mikrotik(reply!)['Mikrotik-Rate-Limit']).to.equal('2M/2M');
    expect((await ticketRow(code!)).status).to.equal('USED');
  });

  it('answers a request without Message-Authenticator (RouterOS 6) with one all the same', async () => {
    const [code] = await makeTickets(h, {});
    const { auth } = h.client();
    const reply = await auth.pap(code!, code!, [], { messageAuthenticator: false });
    expect(reply?.code).to.equal('Access-Accept');
    expect(reply!.messageAuthenticator).to.equal('valid');
  });

  it('drops requests signed with another secret, and anything from an unknown NAS', async () => {
    const [code] = await makeTickets(h, {});
    const wrong = h.client({ secret: 'not-the-secret', timeoutMs: 300 });
    expect(await wrong.auth.pap(code!, code!)).to.equal(null);
    expect(
      await wrong.acct.accounting('Start', [
        ['User-Name', code!],
        ['Acct-Session-Id', 'x1'],
      ]),
    ).to.equal(null);
    const stranger = h.client({ localAddress: '127.0.0.2', timeoutMs: 300 });
    expect(await stranger.auth.pap(code!, code!)).to.equal(null);
    expect(
      await stranger.acct.accounting('Start', [
        ['User-Name', code!],
        ['Acct-Session-Id', 'x2'],
      ]),
    ).to.equal(null);
    expect((await ticketRow(code!)).status).to.equal('ACTIVE');
    expect(await authLog()).to.deep.equal([]);
    expect(await h.t.db.db.selectFrom('radius_sessions').selectAll().execute()).to.deep.equal([]);
  });

  it('rejects DISABLED and DELETED tickets, and accepts a re-enabled one', async () => {
    const [a, b] = await makeTickets(h, {}, 2);
    const patch = (code: string, status: string) =>
      h.t.request('PATCH', `/api/v1/radius/tickets/${code}`, { token: h.tenant.token, body: { status } });
    expect((await patch(a!, 'DISABLED')).status).to.equal(200);
    expect((await patch(b!, 'DELETED')).status).to.equal(200);
    const { auth } = h.client();
    const disabled = await auth.pap(a!, a!);
    expect(disabled?.code).to.equal('Access-Reject');
    expect(disabled!.attributes['Reply-Message']).to.equal('This ticket is suspended');
    expect((await auth.pap(b!, b!))?.code).to.equal('Access-Reject');
    expect((await authLog()).map((l) => l.reason)).to.deep.equal(['DISABLED', 'DELETED']);
    expect((await patch(a!, 'ACTIVE')).body.data.status).to.equal('ACTIVE');
    expect((await auth.pap(a!, a!))?.code).to.equal('Access-Accept');
  });

  it('rejects a ticket once its validity, counted from the first use, has run out', async () => {
    const [code] = await makeTickets(h, { validity: 3600, time: 7200 });
    const { auth } = h.client();
    expect((await auth.pap(code!, code!))?.attributes['Session-Timeout']).to.equal(3600);
    h.t.clock.advance(3000_000);
    // The session may not outlast the validity.
    expect((await auth.pap(code!, code!))?.attributes['Session-Timeout']).to.equal(600);
    h.t.clock.advance(600_000);
    const reply = await auth.pap(code!, code!);
    expect(reply?.code).to.equal('Access-Reject');
    expect(reply!.attributes['Reply-Message']).to.equal('This ticket has expired');
    expect((await ticketRow(code!)).status).to.equal('USED');
  });

  it('answers a retransmit with the same reply without deciding twice', async () => {
    const [code] = await makeTickets(h, {});
    const { auth } = h.client();
    const packet = auth.encode('Access-Request', [
      ['User-Name', code!],
      ['User-Password', code!],
    ]);
    const first = await auth.sendRaw(packet);
    const again = await auth.sendRaw(packet);
    expect(first?.code).to.equal('Access-Accept');
    expect(again!.raw.equals(first!.raw)).to.equal(true);
    expect(await authLog()).to.have.length(1);
  });

  it('answers Status-Server on both ports', async () => {
    const { auth, acct } = h.client();
    const a = await auth.send('Status-Server', [['NAS-Identifier', 'x']], { messageAuthenticator: true });
    expect(a?.code).to.equal('Access-Accept');
    expect(a!.messageAuthenticator).to.equal('valid');
    const b = await acct.send('Status-Server', [['NAS-Identifier', 'x']], { messageAuthenticator: true });
    expect(b?.code).to.equal('Accounting-Response');
  });

  it('commits the queued authentication log when it stops, and answers nothing after', async () => {
    await h.close();
    h = await startHarness(database, { flushDelayMs: 60_000 });
    const [code] = await makeTickets(h, {});
    const { auth } = h.client({ timeoutMs: 300 });
    expect((await auth.pap(code!, 'wrong'))?.code).to.equal('Access-Reject');
    const logged = () => h.t.db.db.selectFrom('radius_auth_log').select('reason').execute();
    expect(await logged(), 'still queued').to.deep.equal([]);
    await h.t.controller.services.radius.close();
    expect(await logged()).to.deep.equal([{ reason: 'BAD_PASSWORD' }]);
    expect(await auth.pap(code!, code!)).to.equal(null);
  });

  it("keeps tenants apart: another tenant's NAS cannot authenticate this tenant's tickets", async () => {
    const [code] = await makeTickets(h, {});
    const other = await h.t.account('client');
    h.nas.set('127.0.0.3', { nasId: 'nas-of-other', clientId: other.id, secret: 'other-secret' });
    const { auth } = h.client({ localAddress: '127.0.0.3', secret: 'other-secret' });
    const reply = await auth.pap(code!, code!);
    expect(reply?.code).to.equal('Access-Reject');
    expect((await ticketRow(code!)).status).to.equal('ACTIVE');
  });
});
