// POST /api/v1/clients/remote-access/resolve: the bundle, the slot found or made by router serial,
// the transport per RouterOS version, replays, the SSTP fallback candidate, other tenants unseen.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startRemoteAccess, type RemoteAccessTest } from './remote-access-fixture.js';

forEachDatabase('remote access: resolve', (database) => {
  let h: RemoteAccessTest;
  before(async () => (h = await startRemoteAccess(database)));
  after(() => h.close());

  const ok = async (body: unknown, token?: string) => {
    const res = await h.resolve(body, token);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data;
  };

  it('gives a RouterOS 7 router WireGuard (DEFAULT), with the agent enrolment block until enrolled', async () => {
    const b = await ok({
      routeros_version: '7.19.1',
      router_serial: 'AAA7001',
      router_model: 'RB952',
      api_mode: 'native',
    });
    expect(b.active_transport).to.equal('WIREGUARD');
    expect(b.active_transport_reason).to.equal('DEFAULT');
    expect(b.transport_channels).to.have.length(1);
    const [ch] = b.transport_channels;
    expect(ch).to.include({ role: 'PRIMARY', protocol: 'WIREGUARD', state: 'ISSUED' });
    expect(ch.endpoint).to.deep.equal({ host: h.vpn.host, port: h.vpn.wireguardPort });
    expect(ch.tunnel_address).to.match(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(b.protocols).to.have.length(1);
    expect(b.protocols[0]).to.include({ protocol: 'WIREGUARD', profile_id: ch.profile_id });
    expect(b.protocols[0]).to.not.have.property('channel_id');
    expect(b.protocols[0].server_public_key).to.equal(h.vpn.publicKey);
    expect(b.rescue_transports).to.deep.equal([]);
    expect(b.transport_channels.map((c: { role: string }) => c.role)).to.not.include('RESCUE');
    expect(b.enrolment.code).to.match(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(b.warnings).to.include('AGENT_NOT_ENROLLED');
    // The VPN end has the router's peer at the channel's address; no private key anywhere in the body.
    expect(h.vpn.calls).to.include(`wg add ${b.protocols[0].public_key} ${ch.tunnel_address}`);
    const psk = h.vpn.peers.get(b.protocols[0].public_key)!.peer.presharedKey;
    expect(JSON.stringify(b)).to.not.include(psk);
    expect(JSON.stringify(b)).to.not.match(/private_key|preshared_key/i);
    // The slot is a real allocation of the client, with the serial the app gave.
    const alloc = await h.t.request('GET', `/api/v1/clients/allocations/${b.allocation_id}`, {
      token: h.client.token,
    });
    expect(alloc.body.data.router.serial).to.equal('AAA7001');
  });

  it('keeps transport and ids when asked again without protocol (UNCHANGED), by serial or by id', async () => {
    const first = await ok({ routeros_version: '7.19', router_serial: 'AAA7002' });
    const again = await ok({ routeros_version: '7.19', router_serial: 'AAA7002' });
    const byId = await ok({ routeros_version: '7.19', allocation_id: first.allocation_id });
    for (const b of [again, byId]) {
      expect(b.allocation_id).to.equal(first.allocation_id);
      expect(b.active_transport).to.equal('WIREGUARD');
      expect(b.active_transport_reason).to.equal('UNCHANGED');
      expect(b.transport_channels).to.deep.equal(first.transport_channels);
      expect(b.protocols).to.deep.equal(first.protocols);
    }
    // Each ask before enrolment shows a fresh code; the earlier one stops working.
    expect(again.enrolment.code).to.not.equal(first.enrolment.code);
  });

  it('gives a RouterOS 6 router SSTP only (ROUTEROS_V6_NO_WIREGUARD)', async () => {
    const b = await ok({ routeros_version: '6.49.10 (long-term)', router_serial: 'AAA6001' });
    expect(b.active_transport).to.equal('SSTP');
    expect(b.active_transport_reason).to.equal('ROUTEROS_V6_NO_WIREGUARD');
    expect(b.transport_channels.map((c: { protocol: string }) => c.protocol)).to.deep.equal(['SSTP']);
    expect(b.protocols[0]).to.include({ protocol: 'SSTP' });
    expect(b.protocols[0].username).to.match(/^tn-[0-9a-f]{32}$/);
    const again = await ok({ routeros_version: '6.49.10', router_serial: 'AAA6001' });
    expect(again.active_transport_reason).to.equal('UNCHANGED');
    expect(again.transport_channels).to.have.length(1);
  });

  it('adds an SSTP FALLBACK candidate on protocol SSTP and removes nothing; a replay adds no second', async () => {
    const first = await ok({ routeros_version: '7.19', router_serial: 'AAA7003' });
    const sstp = await ok({ routeros_version: '7.19', router_serial: 'AAA7003', protocol: 'SSTP' });
    expect(sstp.active_transport).to.equal('SSTP');
    // The WireGuard channel never had a data plane.
    expect(sstp.active_transport_reason).to.equal('WIREGUARD_NEVER_CONNECTED');
    expect(sstp.transport_channels).to.have.length(2);
    expect(sstp.transport_channels[0]).to.deep.equal(first.transport_channels[0]);
    expect(sstp.transport_channels[1]).to.include({ role: 'FALLBACK', protocol: 'SSTP', state: 'ISSUED' });
    expect(sstp.transport_channels[1].tunnel_address).to.not.equal(
      first.transport_channels[0].tunnel_address,
    );
    expect(sstp.protocols.map((p: { protocol: string }) => p.protocol)).to.deep.equal(['WIREGUARD', 'SSTP']);
    expect(sstp.warnings).to.include('PREVIOUS_TRANSPORT_KEPT_UNTIL_PROBE');
    expect(h.vpn.calls.filter((c) => c.startsWith('wg remove'))).to.deep.equal([]);
    const replay = await ok({ routeros_version: '7.19', router_serial: 'AAA7003', protocol: 'SSTP' });
    expect(replay.transport_channels).to.deep.equal(sstp.transport_channels);
    expect(replay.active_transport).to.equal('SSTP');
  });

  it('says APP_REQUESTED when WireGuard had connected before SSTP was asked', async () => {
    const first = await ok({ routeros_version: '7.19', router_serial: 'AAA7004' });
    await h.t.db.db
      .updateTable('remote_access_channels')
      .set({ last_data_plane_confirmed_at: '2026-11-21T08:00:00.000Z' })
      .where('id', '=', first.transport_channels[0].channel_id)
      .execute();
    const b = await ok({ routeros_version: '7.19', router_serial: 'AAA7004', protocol: 'SSTP' });
    expect(b.active_transport_reason).to.equal('APP_REQUESTED');
  });

  it("never shows another tenant's slot: its id is not found, its serial makes the caller's own slot", async () => {
    const mine = await ok({ routeros_version: '7.19', router_serial: 'AAA7005' });
    const byId = await h.resolve(
      { routeros_version: '7.19', allocation_id: mine.allocation_id },
      h.other.token,
    );
    expect(byId.status).to.equal(404);
    expect(byId.body.error.code).to.equal('ALLOCATION_NOT_FOUND');
    const theirs = await ok({ routeros_version: '7.19', router_serial: 'AAA7005' }, h.other.token);
    expect(theirs.allocation_id).to.not.equal(mine.allocation_id);
    expect(theirs.transport_channels[0].channel_id).to.not.equal(mine.transport_channels[0].channel_id);
    const still = await ok({ routeros_version: '7.19', router_serial: 'AAA7005' });
    expect(still.transport_channels).to.deep.equal(mine.transport_channels);
  });

  it('refuses bad input with a clear error and changes nothing', async () => {
    const count = async () =>
      Number(
        (await h.t.db.db
          .selectFrom('remote_access_channels')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst())!.n,
      );
    const before = await count();
    const cases: [unknown, number, string][] = [
      [{ router_serial: 'BAD1' }, 400, 'VALIDATION_ERROR'],
      [{ routeros_version: 'seven', router_serial: 'BAD1' }, 400, 'VALIDATION_ERROR'],
      [{ routeros_version: '5.26', router_serial: 'BAD1' }, 400, 'VALIDATION_ERROR'],
      [{ routeros_version: '7.19', router_serial: 'BAD1', protocol: 'WIREGUARD' }, 400, 'VALIDATION_ERROR'],
      [{ routeros_version: '7.19', router_serial: 'BAD1', api_mode: 'rest' }, 400, 'VALIDATION_ERROR'],
      [{ routeros_version: '7.19', allocation_id: 'not-a-uuid' }, 400, 'VALIDATION_ERROR'],
      [{ routeros_version: '7.19' }, 400, 'ROUTER_SERIAL_REQUIRED'],
      [
        { routeros_version: '7.19', allocation_id: '01930000-0000-7000-8000-000000000000' },
        404,
        'ALLOCATION_NOT_FOUND',
      ],
    ];
    for (const [body, status, code] of cases) {
      const res = await h.resolve(body);
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.code, JSON.stringify(body)).to.equal(code);
    }
    expect((await h.resolve({ routeros_version: '7.19', router_serial: 'X' }, 'bad-token')).status).to.equal(
      401,
    );
    expect(await count()).to.equal(before);
  });

  it('answers 503 VPN_HOST_UNAVAILABLE when the VPN end is down, and makes nothing', async () => {
    h.vpn.down = true;
    try {
      const res = await h.resolve({ routeros_version: '7.19', router_serial: 'AAA7006' });
      expect(res.status).to.equal(503);
      expect(res.body.error.code).to.equal('VPN_HOST_UNAVAILABLE');
    } finally {
      h.vpn.down = false;
    }
  });
});
