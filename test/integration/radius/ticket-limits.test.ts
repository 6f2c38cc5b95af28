// Per-ticket limits through the RADIUS server: a ticket's own data and time quotas replace its
// profile's in the reply attributes and in the exhaustion rule; null leaves the profile's.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { mikrotik, type Attribute } from '../../support/radius-client.js';
import { makeTickets, startHarness, type Harness } from './radius-harness.js';

const MIB = 2 ** 20;
const GIB = 2 ** 30;

forEachDatabase('RADIUS per-ticket limits', (database) => {
  let h: Harness;
  beforeEach(async () => (h = await startHarness(database)));
  afterEach(async () => h.close());

  const ticketRow = (code: string) =>
    h.t.db.db.selectFrom('radius_tickets').selectAll().where('code', '=', code).executeTakeFirstOrThrow();
  const ownLimits = (code: string, data: number | null, time: number | null) =>
    h.t.db.db
      .updateTable('radius_tickets')
      .set({ data_limit_bytes: data, time_limit_seconds: time })
      .where('code', '=', code)
      .execute();
  const stop = (
    code: string,
    sid: string,
    bytesIn: number,
    bytesOut: number,
    seconds: number,
  ): Attribute[] => [
    ['User-Name', code],
    ['Acct-Session-Id', sid],
    ['Acct-Input-Octets', bytesIn],
    ['Acct-Output-Octets', bytesOut],
    ['Acct-Session-Time', seconds],
  ];

  it('answers a ticket’s own lower limits and exhausts it at its own quota; null overrides keep the profile’s', async () => {
    const [own, plain] = await makeTickets(h, { data: GIB, time: 3600, validity: 86_400 }, 2);
    await ownLimits(own!, 100 * MIB, 600);
    // The manager sees which tickets carry limits of their own.
    const { tickets } = h.t.controller.services;
    expect(await tickets.getTicket(h.tenant.id, own!)).to.include({
      data_limit_bytes: 100 * MIB,
      time_limit_seconds: 600,
    });
    expect(await tickets.getTicket(h.tenant.id, plain!)).to.include({
      data_limit_bytes: null,
      time_limit_seconds: null,
    });
    const { auth, acct } = h.client();

    const a = await auth.pap(own!, own!);
    expect(a?.code).to.equal('Access-Accept');
    expect(a!.attributes['Session-Timeout']).to.equal(600);
    expect(mikrotik(a!)).to.deep.equal({ 'Mikrotik-Rate-Limit': '2M/2M', 'Mikrotik-Total-Limit': 100 * MIB });
    const b = await auth.pap(plain!, plain!);
    expect(b!.attributes['Session-Timeout']).to.equal(3600);
    expect(mikrotik(b!)).to.deep.equal({ 'Mikrotik-Rate-Limit': '2M/2M', 'Mikrotik-Total-Limit': GIB });

    // The same 100 MiB spends the ticket's own quota, not the profile's.
    await acct.accounting('Stop', [...stop(own!, 'S1', 60 * MIB, 40 * MIB, 300)]);
    await acct.accounting('Stop', [...stop(plain!, 'S2', 60 * MIB, 40 * MIB, 300)]);
    expect((await ticketRow(own!)).status).to.equal('EXHAUSTED');
    expect((await ticketRow(plain!)).status).to.equal('USED');

    const again = await auth.pap(own!, own!);
    expect(again?.code).to.equal('Access-Reject');
    expect(again!.attributes['Reply-Message']).to.equal('This ticket is used up');
    const rest = await auth.pap(plain!, plain!);
    expect(rest?.code).to.equal('Access-Accept');
    expect(rest!.attributes['Session-Timeout']).to.equal(3300);
    expect(mikrotik(rest!)['Mikrotik-Total-Limit']).to.equal(GIB - 100 * MIB);
  });

  it('exhausts on a ticket’s own time quota while its data falls back to the profile’s', async () => {
    const [code] = await makeTickets(h, { data: 10 * GIB, time: 3600 });
    await ownLimits(code!, null, 600);
    const { auth, acct } = h.client();
    const reply = await auth.pap(code!, code!);
    expect(reply!.attributes['Session-Timeout']).to.equal(600);
    expect(mikrotik(reply!)).to.include({
      'Mikrotik-Total-Limit': (10 * GIB) % 2 ** 32,
      'Mikrotik-Total-Limit-Gigawords': 2,
    });
    await acct.accounting('Interim-Update', stop(code!, 'S1', 1, 1, 599));
    expect((await ticketRow(code!)).status).to.equal('USED');
    await acct.accounting('Interim-Update', stop(code!, 'S1', 1, 1, 600));
    expect((await ticketRow(code!)).status).to.equal('EXHAUSTED');

    // Authentication applies the same rule: a USED ticket whose usage reached its own quota by
    // another path is refused and exhausted.
    const [other] = await makeTickets(h, { name: 'P2', time: 3600 });
    await ownLimits(other!, null, 300);
    expect((await auth.pap(other!, other!))?.code).to.equal('Access-Accept');
    await h.t.db.db
      .updateTable('radius_tickets')
      .set({ seconds_used: 300 })
      .where('code', '=', other!)
      .execute();
    expect((await auth.pap(other!, other!))?.code).to.equal('Access-Reject');
    expect((await ticketRow(other!)).status).to.equal('EXHAUSTED');
  });

  it('an own limit above the profile’s replaces it (it is not the smaller of the two)', async () => {
    const [code] = await makeTickets(h, { data: 100 * MIB, time: 3600 });
    await ownLimits(code!, 5 * GIB, 7200);
    const { auth, acct } = h.client();
    const reply = await auth.pap(code!, code!);
    expect(reply!.attributes['Session-Timeout']).to.equal(7200);
    expect(mikrotik(reply!)).to.include({
      'Mikrotik-Total-Limit': (5 * GIB) % 2 ** 32,
      'Mikrotik-Total-Limit-Gigawords': 1,
    });
    await acct.accounting('Stop', stop(code!, 'S1', 200 * MIB, 0, 4000));
    expect((await ticketRow(code!)).status).to.equal('USED');
  });

  it('authenticates imported router users with their own limits, usage and status', async () => {
    const { profiles, ticketImport } = h.t.controller.services;
    await profiles.setProfile(h.tenant.id, '1H', {
      time_limit_seconds: 3600,
      validity_seconds: 86_400,
      rate_limit: '1M/2M',
    });
    const importedAt = h.t.clock.now().toISOString();
    const result = await ticketImport.importFromRouter(h.tenant.id, {
      users: [
        {
          name: 'Imp-Used',
          password: 'secret',
          profile: '1H',
          limit_uptime: 1800,
          limit_bytes_total: 50 * MIB,
          uptime_seconds: 600,
          bytes_in: 4 * MIB,
          bytes_out: 6 * MIB,
          disabled: false,
          comment: 'vendu par Awa',
        },
        { name: 'nopass', profile: '1H', disabled: false },
        { name: 'off', password: 'x', profile: '1H', disabled: true },
        { name: 'spent', password: 'x', profile: '1H', disabled: false, uptime_seconds: 3600 },
        { name: 'default-trial', profile: 'default', disabled: false },
      ],
    });
    expect(result).to.deep.equal({ inserted: 4, existing: 0, conflicts: [] });
    h.t.clock.advance(60_000);
    const { auth } = h.client();

    const used = await auth.pap('Imp-Used', 'secret');
    expect(used?.code).to.equal('Access-Accept');
    expect(used!.attributes['Session-Timeout']).to.equal(1200);
    expect(mikrotik(used!)).to.deep.equal({
      'Mikrotik-Rate-Limit': '1M/2M',
      'Mikrotik-Total-Limit': 40 * MIB,
    });
    // Already USED at the import: no first use, used_at and expiry kept from then.
    expect(await ticketRow('Imp-Used')).to.include({
      status: 'USED',
      used_at: importedAt,
      expires_at: '2026-11-22T08:00:00.000Z',
      first_nas_id: null,
    });
    // Accounting adds its sessions to the router's usage: the quota is never given back.
    const { acct } = h.client();
    await acct.accounting('Interim-Update', stop('Imp-Used', 'M1', 2 * MIB, 3 * MIB, 300));
    await h.t.controller.services.radius.flush();
    expect(await ticketRow('Imp-Used')).to.include({ seconds_used: 900, bytes_used: 15 * MIB });
    await acct.accounting('Stop', stop('Imp-Used', 'M1', 20 * MIB, 20 * MIB, 900));
    await h.t.controller.services.radius.flush();
    // 600 s before + 900 s now reach the own 1800 s? Not yet; 10 MiB + 40 MiB reach the own 50 MiB.
    expect(await ticketRow('Imp-Used')).to.include({
      seconds_used: 1500,
      bytes_used: 50 * MIB,
      status: 'EXHAUSTED',
    });
    // The code is matched exactly, case included.
    expect((await auth.pap('imp-used', 'secret'))?.code).to.equal('Access-Reject');

    // An empty password as a NAS sends it: 16 zero octets (RFC 2865 gives User-Password 16 at least).
    expect((await auth.pap('nopass', 'x'))?.code).to.equal('Access-Reject');
    const fresh = await auth.pap('nopass', '\u0000'.repeat(16));
    expect(fresh?.code).to.equal('Access-Accept');
    expect(fresh!.attributes['Session-Timeout']).to.equal(3600);
    expect(await ticketRow('nopass')).to.include({ status: 'USED', first_nas_id: h.nasEntry.nasId });
    expect((await auth.chap('nopass', ''))?.code).to.equal('Access-Accept');

    const off = await auth.pap('off', 'x');
    expect(off!.attributes['Reply-Message']).to.equal('This ticket is suspended');
    const spent = await auth.pap('spent', 'x');
    expect(spent!.attributes['Reply-Message']).to.equal('This ticket is used up');
    expect((await auth.pap('default-trial', ''))?.code).to.equal('Access-Reject');

    // Validity runs from the import: a day later a used ticket has expired.
    h.t.clock.set(new Date('2026-11-22T09:00:00.000Z'));
    expect((await auth.pap('nopass', '\u0000'.repeat(16)))!.attributes['Reply-Message']).to.equal(
      'This ticket has expired',
    );
  });
});
