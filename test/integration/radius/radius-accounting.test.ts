import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { mikrotik, type Attribute } from '../../support/radius-client.js';
import { makeTickets, startHarness, type Harness } from './radius-harness.js';

const MIB = 2 ** 20;

forEachDatabase('RADIUS accounting', (database) => {
  let h: Harness;
  beforeEach(async () => (h = await startHarness(database)));
  afterEach(async () => h.close());

  const ticketRow = (code: string) =>
    h.t.db.db.selectFrom('radius_tickets').selectAll().where('code', '=', code).executeTakeFirstOrThrow();
  const sessions = () =>
    h.t.db.db.selectFrom('radius_sessions').selectAll().orderBy('acct_session_id').execute();
  const usage = (input: number, output: number, seconds: number, inGiga = 0): Attribute[] => [
    ['Acct-Input-Octets', input],
    ['Acct-Input-Gigawords', inGiga],
    ['Acct-Output-Octets', output],
    ['Acct-Session-Time', seconds],
  ];
  const common = (code: string, sid: string): Attribute[] => [
    ['User-Name', code],
    ['Acct-Session-Id', sid],
    ['Calling-Station-Id', '02:00:00:00:00:01'],
    ['Framed-IP-Address', '10.5.50.7'],
  ];

  it('records Start, Interim-Update and Stop, counting a duplicate Interim-Update once', async () => {
    const [code] = await makeTickets(h, {});
    const { auth, acct } = h.client();
    expect((await auth.pap(code!, code!))?.code).to.equal('Access-Accept');

    const start = await acct.accounting('Start', common(code!, 'S1'));
    expect(start?.code).to.equal('Accounting-Response');
    expect(start!.authentic).to.equal(true);
    expect(start!.messageAuthenticator).to.equal('valid');
    h.t.clock.advance(60_000);
    const interim = [...common(code!, 'S1'), ...usage(1000, 9000, 60, 1)];
    expect((await acct.accounting('Interim-Update', interim))?.code).to.equal('Accounting-Response');
    // The same report again (a new packet, not a retransmit) adds nothing: counters are absolute.
    expect((await acct.accounting('Interim-Update', interim))?.code).to.equal('Accounting-Response');
    let row = await ticketRow(code!);
    expect(Number(row.bytes_used)).to.equal(2 ** 32 + 10_000);
    expect(Number(row.seconds_used)).to.equal(60);

    h.t.clock.advance(60_000);
    const stop = [
      ...common(code!, 'S1'),
      ...usage(2000, 18_000, 120, 1),
      ['Acct-Terminate-Cause', 'User-Request'],
    ];
    expect((await acct.accounting('Stop', stop as Attribute[]))?.code).to.equal('Accounting-Response');
    // A late, older Interim-Update neither lowers the counters nor reopens the session.
    expect((await acct.accounting('Interim-Update', interim))?.code).to.equal('Accounting-Response');

    row = await ticketRow(code!);
    expect(Number(row.bytes_used)).to.equal(2 ** 32 + 20_000);
    expect(Number(row.seconds_used)).to.equal(120);
    const [s] = await sessions();
    expect(s).to.include({
      client_id: h.tenant.id,
      nas_id: h.nasEntry.nasId,
      ticket_code: code,
      acct_session_id: 'S1',
      started_at: '2026-11-21T08:00:00.000Z',
      stopped_at: '2026-11-21T08:02:00.000Z',
      terminate_cause: 'User-Request',
      framed_ip: '10.5.50.7',
      calling_station_id: '02:00:00:00:00:01',
    });
    expect(Number(s!.input_gigawords)).to.equal(1);
    expect(Number(s!.input_octets)).to.equal(2000);
    expect(Number(s!.total_bytes)).to.equal(2 ** 32 + 20_000);
    expect(Number(s!.session_time)).to.equal(120);
  });

  it('offers only what is left of the quotas at the next authentication', async () => {
    const [code] = await makeTickets(h, { data: 100 * MIB, time: 3600 });
    const { auth, acct } = h.client();
    await auth.pap(code!, code!);
    await acct.accounting('Start', common(code!, 'S1'));
    await acct.accounting('Stop', [...common(code!, 'S1'), ...usage(10 * MIB, 30 * MIB, 600)]);
    const reply = await auth.pap(code!, code!);
    expect(reply?.code).to.equal('Access-Accept');
    expect(reply!.attributes['Session-Timeout']).to.equal(3000);
    expect(mikrotik(reply!)['Mikrotik-Total-Limit']).to.equal(60 * MIB);
    expect(mikrotik(reply!)).to.not.have.property('Mikrotik-Total-Limit-Gigawords');
  });

  it('moves a ticket to EXHAUSTED when its data quota is consumed, and rejects it after', async () => {
    const [code] = await makeTickets(h, { data: 100 * MIB });
    const { auth, acct } = h.client();
    await auth.pap(code!, code!);
    await acct.accounting('Start', common(code!, 'S1'));
    await acct.accounting('Interim-Update', [...common(code!, 'S1'), ...usage(50 * MIB, 49 * MIB, 300)]);
    expect((await ticketRow(code!)).status).to.equal('USED');
    await acct.accounting('Stop', [...common(code!, 'S1'), ...usage(50 * MIB, 50 * MIB, 320)]);
    expect((await ticketRow(code!)).status).to.equal('EXHAUSTED');
    const reply = await auth.pap(code!, code!);
    expect(reply?.code).to.equal('Access-Reject');
    expect(reply!.attributes['Reply-Message']).to.equal('This ticket is used up');
  });

  it('moves a ticket to EXHAUSTED when its time quota is consumed over two sessions', async () => {
    const [code] = await makeTickets(h, { time: 3600 });
    const { auth, acct } = h.client();
    await auth.pap(code!, code!);
    await acct.accounting('Stop', [...common(code!, 'S1'), ...usage(1, 1, 3000)]);
    expect((await ticketRow(code!)).status).to.equal('USED');
    expect((await auth.pap(code!, code!))?.attributes['Session-Timeout']).to.equal(600);
    await acct.accounting('Interim-Update', [...common(code!, 'S2'), ...usage(1, 1, 600)]);
    expect((await ticketRow(code!)).status).to.equal('EXHAUSTED');
    expect((await auth.pap(code!, code!))?.code).to.equal('Access-Reject');
  });

  it('rejects (and exhausts) a USED ticket whose quota is spent at authentication time', async () => {
    const [code] = await makeTickets(h, { time: 600 });
    const { auth } = h.client();
    await auth.pap(code!, code!);
    // Usage written by another path (an import): authentication finds the quota spent.
    await h.t.db.db
      .updateTable('radius_tickets')
      .set({ seconds_used: 600 })
      .where('code', '=', code!)
      .execute();
    expect((await auth.pap(code!, code!))?.code).to.equal('Access-Reject');
    expect((await ticketRow(code!)).status).to.equal('EXHAUSTED');
  });

  it('closes sessions left open by a silent NAS, keeping their usage', async () => {
    const [code] = await makeTickets(h, { data: 100 * MIB });
    const { acct } = h.client();
    await acct.accounting('Start', common(code!, 'S1'));
    h.t.clock.advance(300_000);
    await acct.accounting('Interim-Update', [...common(code!, 'S1'), ...usage(5 * MIB, 5 * MIB, 300)]);
    const lastHeard = h.t.clock.now().toISOString();
    await acct.accounting('Start', common(code!, 'S2'));
    h.t.clock.advance(600_000);
    // S2 hears one more interim; S1 stays silent.
    await acct.accounting('Interim-Update', [...common(code!, 'S2'), ...usage(1, 1, 600)]);
    h.t.clock.advance(301_000);

    const admin = await h.t.admin();
    const run = await h.t.request('POST', '/api/v1/admin/jobs/RADIUS_STALE_SESSIONS/run', {
      token: admin.token,
    });
    expect(run.status).to.equal(200);
    expect(run.body.data.result).to.deep.equal({ closed: 1 });
    const [s1, s2] = await sessions();
    expect(s1).to.include({ stopped_at: lastHeard, terminate_cause: 'Lost-Service' });
    expect(Number(s1!.total_bytes)).to.equal(10 * MIB);
    expect(s2).to.include({ stopped_at: null });
    expect(Number((await ticketRow(code!)).bytes_used)).to.equal(10 * MIB + 2);
  });

  it('answers every verified report, also for users who are no ticket, and closes sessions on Accounting-On', async () => {
    const { acct } = h.client();
    expect((await acct.accounting('Start', common('router-local-user', 'L1')))?.code).to.equal(
      'Accounting-Response',
    );
    expect((await acct.accounting('Interim-Update', [['NAS-Identifier', 'x']]))?.code).to.equal(
      'Accounting-Response',
    );
    expect((await sessions()).map((s) => [s.ticket_code, s.stopped_at])).to.deep.equal([
      ['router-local-user', null],
    ]);
    expect((await acct.accounting('Accounting-On', [['NAS-Identifier', 'x']]))?.code).to.equal(
      'Accounting-Response',
    );
    expect((await sessions()).map((s) => [s.stopped_at, s.terminate_cause])).to.deep.equal([
      [h.t.clock.now().toISOString(), 'NAS-Reboot'],
    ]);
  });

  it('handles a burst: 37 first authentications and 37 session reports committed together', async () => {
    const codes = await makeTickets(h, { time: 3600 }, 37);
    const { auth, acct } = h.client();
    const replies = await Promise.all(codes.map((c) => auth.pap(c, c)));
    expect(replies.map((r) => r?.code)).to.deep.equal(codes.map(() => 'Access-Accept'));
    const statuses = await h.t.db.db.selectFrom('radius_tickets').select(['status', 'used_at']).execute();
    expect(statuses.every((r) => r.status === 'USED' && r.used_at !== null)).to.equal(true);
    const acks = await Promise.all(
      codes.map((c, i) => acct.accounting('Stop', [...common(c, `B${i}`), ...usage(i, 0, 60 + i)])),
    );
    expect(acks.every((a) => a?.code === 'Accounting-Response')).to.equal(true);
    const rows = await h.t.db.db
      .selectFrom('radius_tickets')
      .select(['code', 'bytes_used', 'seconds_used'])
      .execute();
    const byCode = new Map(rows.map((r) => [r.code, r]));
    codes.forEach((c, i) => {
      expect(Number(byCode.get(c)!.bytes_used), c).to.equal(i);
      expect(Number(byCode.get(c)!.seconds_used), c).to.equal(60 + i);
    });
    expect(await sessions()).to.have.length(37);
  });

  it('marks a ticket USED when its first sign of life is accounting', async () => {
    const [code] = await makeTickets(h, { validity: 3600 });
    const { acct, auth } = h.client();
    await acct.accounting('Start', common(code!, 'S1'));
    const row = await ticketRow(code!);
    expect(row).to.include({
      status: 'USED',
      used_at: h.t.clock.now().toISOString(),
      first_nas_id: h.nasEntry.nasId,
    });
    h.t.clock.advance(3600_000);
    expect((await auth.pap(code!, code!))?.attributes['Reply-Message']).to.equal('This ticket has expired');
  });

  // The status an accounting report leaves, from each status, with the quota reached or not: only
  // ACTIVE and USED move; nothing the manager set (DISABLED, DELETED) or EXHAUSTED comes back.
  const transitions: { from: string; reached: boolean; to: string }[] = [
    { from: 'ACTIVE', reached: false, to: 'USED' },
    { from: 'ACTIVE', reached: true, to: 'EXHAUSTED' },
    { from: 'USED', reached: false, to: 'USED' },
    { from: 'USED', reached: true, to: 'EXHAUSTED' },
    { from: 'EXHAUSTED', reached: false, to: 'EXHAUSTED' },
    { from: 'DISABLED', reached: false, to: 'DISABLED' },
    { from: 'DISABLED', reached: true, to: 'DISABLED' },
    { from: 'DELETED', reached: true, to: 'DELETED' },
  ];
  for (const c of transitions)
    it(`accounting on ${c.from}, quota ${c.reached ? 'reached' : 'not reached'} → ${c.to}`, async () => {
      const [code] = await makeTickets(h, { data: 10 * MIB });
      await h.t.db.db
        .updateTable('radius_tickets')
        .set({ status: c.from as never })
        .where('code', '=', code!)
        .execute();
      const { acct } = h.client();
      const bytes = c.reached ? 10 * MIB : MIB;
      await acct.accounting('Interim-Update', [...common(code!, 'S1'), ...usage(bytes, 0, 60)]);
      const row = await ticketRow(code!);
      expect(row.status).to.equal(c.to);
      expect(Number(row.bytes_used)).to.equal(bytes);
    });
});
