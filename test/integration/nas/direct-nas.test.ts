// A NAS on a VPN registered for direct UDP RADIUS through POST /nas: its nasname is its source
// address, its script points at this controller's RADIUS, and the RADIUS server answers packets
// from that address (real UDP on loopback) with that NAS's secret, and nothing from elsewhere.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { RadiusTestClient } from '../../support/radius-client.js';
import { secretOf, startNasTest, type NasTest } from './nas-fixture.js';

const VPN_ADDRESS = '127.0.0.5';

forEachDatabase('NAS on a VPN, direct UDP RADIUS', (database) => {
  let t: NasTest;
  const clients: RadiusTestClient[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    const running = t;
    t = undefined as unknown as NasTest;
    await running?.t.controller.services.takeover.settled();
    await running?.t.close();
  });

  const enrol = (body: Record<string, unknown>, token?: string) =>
    t.radius('POST', '/nas', { body, ...(token ? { token } : {}) });
  const nasRows = () => t.t.db.db.selectFrom('nas').selectAll().execute();
  const client = (options: { localAddress: string; secret: string; port: number }) => {
    const c = new RadiusTestClient({ ...options, timeoutMs: 400 });
    clients.push(c);
    return c;
  };

  describe('direct UDP RADIUS listening', () => {
    beforeEach(async () => {
      t = await startNasTest(database, {
        radiusEnabled: true,
        radiusHost: '127.0.0.1',
        radiusAuthPort: 0,
        radiusAcctPort: 0,
      });
    });

    it('registers the NAS by its source address, and RADIUS answers it with its own secret', async () => {
      const site = await t.site('VPN00001');
      const res = await enrol({
        router_serial: 'VPN00001',
        radius_transport: 'direct',
        nas_address: VPN_ADDRESS,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.nas).to.include({ nasname: VPN_ADDRESS, status: 'ACTIVE' });

      const { auth, acct } = t.t.controller.radiusAddresses!;
      // The router was told to send RADIUS straight to this controller.
      expect(site.router.radius).to.have.length(1);
      expect(site.router.radius[0]).to.include({
        address: '127.0.0.1',
        authPort: auth.port,
        acctPort: acct.port,
      });
      const provisioning = await t.radius('GET', `/nas/${res.body.nas.id}/provisioning`);
      expect(provisioning.body.radius).to.include({
        transport: 'direct',
        address: '127.0.0.1',
        authentication_port: auth.port,
      });
      const secret = secretOf(provisioning.body.script);
      const verify = await t.radius('POST', `/nas/${res.body.nas.id}/verify`);
      expect(verify.body.verified, JSON.stringify(verify.body)).to.equal(true);

      const { profiles, tickets } = t.t.controller.services;
      await profiles.setProfile(t.client.id, '1h', { time_limit_seconds: 3600 });
      const [ticket] = await tickets.createTickets(t.client.id, { profileId: '1h', quantity: 1 });
      const code = ticket!.code;

      const fromNas = client({ localAddress: VPN_ADDRESS, secret, port: auth.port });
      const accepted = await fromNas.pap(code, code);
      expect(accepted?.code).to.equal('Access-Accept');
      expect(accepted!.authentic).to.equal(true);
      const accounting = client({ localAddress: VPN_ADDRESS, secret, port: acct.port });
      const status = await accounting.send('Status-Server', [['NAS-Identifier', 'x']], {
        messageAuthenticator: true,
      });
      expect(status?.code).to.equal('Accounting-Response');

      // The same secret from another source is no NAS; the NAS's address with another secret neither.
      expect(await client({ localAddress: '127.0.0.6', secret, port: auth.port }).pap(code, code)).to.equal(
        null,
      );
      expect(
        await client({ localAddress: VPN_ADDRESS, secret: 'not-the-secret', port: auth.port }).pap(
          code,
          code,
        ),
      ).to.equal(null);
    });

    it('refuses an address that is not a usable IPv4 one, or without direct, changing nothing', async () => {
      await t.site('VPN00001');
      const cases: [Record<string, unknown>, string][] = [
        [{ radius_transport: 'direct' }, 'nas_address'],
        [{ radius_transport: 'direct', nas_address: 'vpn.example.com' }, 'nas_address'],
        [{ radius_transport: 'direct', nas_address: '10.8.0.256' }, 'nas_address'],
        [{ radius_transport: 'direct', nas_address: '0.0.0.0' }, 'nas_address'],
        [{ radius_transport: 'direct', nas_address: '239.1.1.1' }, 'nas_address'],
        [{ radius_transport: 'direct', nas_address: 42 }, 'nas_address'],
        [{ nas_address: VPN_ADDRESS }, 'nas_address'],
        [{ radius_transport: 'relay', nas_address: VPN_ADDRESS }, 'nas_address'],
        [{ radius_transport: 'udp', nas_address: VPN_ADDRESS }, 'radius_transport'],
      ];
      for (const [body, field] of cases) {
        const res = await enrol({ router_serial: 'VPN00001', ...body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.code).to.equal('VALIDATION_ERROR');
        expect(res.body.details[0].field).to.equal(field);
      }
      expect(await nasRows()).to.deep.equal([]);
    });

    it('keeps a source address to one live NAS, across routers and tenants', async () => {
      await t.site('VPN00001');
      await t.site('VPN00002');
      const first = await enrol({
        router_serial: 'VPN00001',
        radius_transport: 'direct',
        nas_address: VPN_ADDRESS,
      });
      expect(first.status).to.equal(201);
      // Enrolled again with the same address: the same NAS.
      const again = await enrol({
        router_serial: 'VPN00001',
        radius_transport: 'direct',
        nas_address: VPN_ADDRESS,
      });
      expect(again.status).to.equal(201);
      expect(again.body.nas.id).to.equal(first.body.nas.id);

      const taken = await enrol({
        router_serial: 'VPN00002',
        radius_transport: 'direct',
        nas_address: VPN_ADDRESS,
      });
      expect(taken.status, JSON.stringify(taken.body)).to.equal(409);
      expect(taken.body.code).to.equal('NAS_ADDRESS_TAKEN');
      const other = await t.t.account('client');
      await t.license(other.id);
      await t.site('VPN00003', other.token);
      const elsewhere = await enrol(
        { router_serial: 'VPN00003', radius_transport: 'direct', nas_address: VPN_ADDRESS },
        other.token,
      );
      expect(elsewhere.status).to.equal(409);
      expect(elsewhere.body.code).to.equal('NAS_ADDRESS_TAKEN');
      expect((await nasRows()).map((n) => n.nasname)).to.deep.equal([VPN_ADDRESS]);

      // The first router back to its agent's relay frees the address for the second.
      const relayed = await enrol({ router_serial: 'VPN00001', radius_transport: 'relay' });
      expect(relayed.status).to.equal(201);
      expect(relayed.body.nas).to.include({
        id: first.body.nas.id,
        nasname: `agent:${relayed.body.nas.allocation_id}`,
      });
      const freed = await enrol({
        router_serial: 'VPN00002',
        radius_transport: 'direct',
        nas_address: VPN_ADDRESS,
      });
      expect(freed.status, JSON.stringify(freed.body)).to.equal(201);
    });
  });

  describe('direct UDP RADIUS off (the default)', () => {
    beforeEach(async () => (t = await startNasTest(database)));

    it('answers 409 RADIUS_DIRECT_UNAVAILABLE and registers nothing', async () => {
      await t.site('VPN00001');
      const res = await enrol({
        router_serial: 'VPN00001',
        radius_transport: 'direct',
        nas_address: VPN_ADDRESS,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.code).to.equal('RADIUS_DIRECT_UNAVAILABLE');
      expect(await nasRows()).to.deep.equal([]);
    });
  });
});
