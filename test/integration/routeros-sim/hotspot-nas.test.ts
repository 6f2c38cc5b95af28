// The simulated hotspot as a RADIUS NAS, against a tiny RADIUS server: PAP
// and CHAP logins, rejects, accounting Start / Interim / Stop with
// gigawords, Message-Authenticator, local logins, CoA/Disconnect.
import { createSocket } from 'node:dgram';
import { expect } from 'chai';
import { ensureMikrotikDictionary, radiusCodec } from '../../routeros-sim/radius-dictionary.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import type { RouterSimOptions } from '../../routeros-sim/router-sim.js';
import { RadiusTestServer } from './radius-test-server.js';
import { connectApi, startSim } from './sim-helpers.js';

const GiB4 = 2 ** 32;
const MAC = 'AA:BB:CC:10:20:30';

async function provision(sim: RouterSim, server: RadiusTestServer, profileProps = ''): Promise<void> {
  const result = await sim.runScript(
    `${server.radiusAddCommand()}\n/ip hotspot profile set hsprof1 use-radius=yes radius-accounting=yes ${profileProps}`,
  );
  expect(result.error).to.equal(undefined);
}

function active(sim: RouterSim): Array<Record<string, string>> {
  return sim.state
    .table('/ip/hotspot/active')
    .list()
    .filter((r) => r.props.user?.startsWith('tn'))
    .map((r) => r.props);
}

describe('routeros-sim hotspot NAS', () => {
  let sim: RouterSim;
  let radius: RadiusTestServer;

  async function setup(options: Partial<RouterSimOptions> = {}, profileProps = ''): Promise<void> {
    sim = await startSim({ version: '7.19', ...options });
    radius = await RadiusTestServer.start('s3cret-nas');
    await provision(sim, radius, profileProps);
  }

  afterEach(async () => {
    await sim?.stop();
    radius?.close();
  });

  it('PAP login: Access-Request as a MikroTik hotspot sends it, active entry, accounting Start', async () => {
    await setup({}, 'login-by=http-pap');
    radius.users.set('tn-pap', {
      password: 'pw-1',
      reply: [
        ['Session-Timeout', 3600],
        ['Class', Buffer.from('voucher-42')],
        ['Vendor-Specific', 14988, [['Mikrotik-Rate-Limit', '1M/2M']]],
        ['Vendor-Specific', 14988, [['Mikrotik-Total-Limit', 0]]],
        ['Vendor-Specific', 14988, [['Mikrotik-Total-Limit-Gigawords', 2]]],
      ],
    });
    await sim.runScript('/system identity set name=site-dakar-01');
    const result = await sim.hotspotLogin({ user: 'tn-pap', password: 'pw-1', mac: MAC, ip: '10.5.50.77' });
    expect(result).to.include({ ok: true, radius: true });
    expect(result.attributes).to.include({ 'Session-Timeout': 3600, 'Mikrotik-Rate-Limit': '1M/2M' });

    const [request] = radius.received;
    expect(request?.code).to.equal('Access-Request');
    expect(request?.attributes).to.include({
      'User-Name': 'tn-pap',
      'User-Password': 'pw-1',
      'NAS-Identifier': 'site-dakar-01',
      'NAS-IP-Address': '192.168.1.23',
      'Called-Station-Id': 'hotspot1',
      'Calling-Station-Id': MAC,
      'Framed-IP-Address': '10.5.50.77',
      'Service-Type': 'Login-User',
      'NAS-Port-Type': 'Wireless-802.11',
      'NAS-Port-Id': 'bridge-hotspot',
    });
    // RouterOS 7.15+ signs every Access-Request (BlastRADIUS); the server's codec verified it
    expect(request?.attributes['Message-Authenticator']).to.be.instanceOf(Buffer);
    expect(request?.vendor).to.deep.equal({ 'Mikrotik-Host-IP': '10.5.50.77' });

    const [entry] = active(sim);
    expect(entry).to.include({
      server: 'hotspot1',
      user: 'tn-pap',
      address: '10.5.50.77',
      'mac-address': MAC,
      'login-by': 'http-pap',
      'session-time-left': '1h',
      'limit-bytes-total': String(2 * GiB4),
      radius: 'true',
    });
    const queue = sim.state.table('/queue/simple').findBy('name', '<hotspot-tn-pap>');
    expect(queue?.props).to.include({ target: '10.5.50.77/32', 'max-limit': '1M/2M', dynamic: 'true' });

    const [start] = radius.accounting('Start');
    expect(start?.port).to.equal('acct');
    expect(start?.attributes).to.include({
      'User-Name': 'tn-pap',
      'Acct-Session-Id': request?.attributes['Acct-Session-Id'],
      'Acct-Authentic': 'RADIUS',
      'NAS-Identifier': 'site-dakar-01',
    });
    expect(String(start?.attributes.Class)).to.equal('voucher-42');
  });

  it('sends CHAP when the profile logs in by http-chap, and the server can verify it', async () => {
    await setup({}, 'login-by=cookie,http-chap');
    radius.users.set('tn-chap', { password: 'secret-chap' });
    const result = await sim.hotspotLogin({ user: 'tn-chap', password: 'secret-chap', mac: MAC });
    expect(result.ok).to.equal(true);
    const [request] = radius.received;
    expect(request?.attributes).to.not.have.property('User-Password');
    expect(request?.attributes['CHAP-Password']).to.be.instanceOf(Buffer).with.length(17);
    expect(request?.attributes['CHAP-Challenge']).to.be.instanceOf(Buffer).with.length(16);
    expect(active(sim)[0]?.['login-by']).to.equal('http-chap');
    // a wrong password gives a CHAP response the server rejects
    const bad = await sim.hotspotLogin({ user: 'tn-chap', password: 'nope', mac: 'AA:BB:CC:10:20:31' });
    expect(bad).to.include({ ok: false, reason: 'voucher inconnu' });
  });

  it('on Access-Reject adds no active entry and sends no accounting', async () => {
    await setup();
    const result = await sim.hotspotLogin({ user: 'tn-unknown', password: 'x', mac: MAC });
    expect(result).to.include({ ok: false, reason: 'voucher inconnu' });
    expect(active(sim)).to.have.length(0);
    expect(radius.accounting()).to.have.length(0);
    const log = sim.state
      .table('/log')
      .list()
      .map((l) => l.props.message);
    expect(log.at(-1)).to.match(/^tn-unknown \(10\.5\.50\.\d+\): login failed: voucher inconnu$/);
  });

  it('reports counters with gigawords in Interim-Update and Stop, and ends sessions on their limits', async () => {
    await setup();
    radius.users.set('tn-big', { password: 'b' });
    radius.users.set('tn-short', { password: 's', reply: [['Session-Timeout', 60]] });
    await sim.hotspotLogin({ user: 'tn-big', password: 'b', mac: MAC });
    await sim.advanceTraffic('tn-big', { bytesIn: 5 * GiB4 + 1000, bytesOut: 2 * GiB4 + 7, seconds: 120 });
    expect(active(sim)[0]).to.include({ 'bytes-in': String(5 * GiB4 + 1000), uptime: '2m' });
    expect(await sim.sendInterimUpdates()).to.equal(1);
    const [interim] = radius.accounting('Interim-Update');
    expect(interim?.attributes).to.include({
      'Acct-Session-Time': 120,
      'Acct-Input-Octets': 1000,
      'Acct-Input-Gigawords': 5,
      'Acct-Output-Octets': 7,
      'Acct-Output-Gigawords': 2,
    });

    // kicked from the API: Stop with Admin-Reset
    const api = await connectApi(sim);
    const [row] = await api.write('/ip/hotspot/active/print', ['?user=tn-big', '=.proplist=.id']);
    await api.write('/ip/hotspot/active/remove', [`=.id=${row?.['.id'] ?? ''}`]);
    await api.close();
    await sim.flushRadius();
    const [stop] = radius.accounting('Stop');
    expect(stop?.attributes).to.include({
      'User-Name': 'tn-big',
      'Acct-Terminate-Cause': 'Admin-Reset',
      'Acct-Input-Gigawords': 5,
      'Acct-Output-Octets': 7,
    });
    expect(active(sim)).to.have.length(0);
    expect(sim.state.table('/queue/simple').findBy('name', '<hotspot-tn-big>')).to.equal(undefined);

    await sim.hotspotLogin({ user: 'tn-short', password: 's', mac: 'AA:BB:CC:10:20:32' });
    expect(await sim.advanceTraffic('tn-short', { bytesIn: 10, seconds: 61 })).to.deep.equal({
      found: true,
      ended: 'Session-Timeout',
    });
    expect(radius.accounting('Stop').at(-1)?.attributes).to.include({
      'User-Name': 'tn-short',
      'Acct-Terminate-Cause': 'Session-Timeout',
      'Acct-Session-Time': 61,
    });
  });

  it('drops replies without Message-Authenticator unless require-message-auth=no; 6.49 sends none', async () => {
    await setup();
    radius.users.set('tn-ma', { password: 'm' });
    radius.omitMessageAuthenticator = true;
    const refused = await sim.hotspotLogin({ user: 'tn-ma', password: 'm', mac: MAC });
    expect(refused).to.include({ ok: false, reason: 'RADIUS server is not responding' });
    // RouterOS resends the same request until its tries run out
    expect(radius.received.filter((r) => r.code === 'Access-Request')).to.have.length(3);
    await sim.runScript('/radius set [find] require-message-auth=no');
    expect((await sim.hotspotLogin({ user: 'tn-ma', password: 'm', mac: MAC })).ok).to.equal(true);

    await sim.stop();
    radius.close();
    await setup({ version: '6.49' });
    radius.users.set('tn-old', { password: 'o' });
    radius.omitMessageAuthenticator = true;
    expect((await sim.hotspotLogin({ user: 'tn-old', password: 'o', mac: MAC })).ok).to.equal(true);
    expect(radius.received[0]?.attributes).to.not.have.property('Message-Authenticator');
  });

  it('logs in local users from /ip/hotspot/user when the profile does not use RADIUS', async () => {
    sim = await startSim({ version: '7.19' });
    radius = await RadiusTestServer.start();
    await sim.runScript(
      '/ip hotspot user add name=tn-local password=pin1 limit-uptime=10m limit-bytes-total=1000000 profile=1h-500F',
    );
    expect(await sim.hotspotLogin({ user: 'tn-local', password: 'bad', mac: MAC })).to.include({
      ok: false,
      reason: 'invalid username or password',
    });
    const ok = await sim.hotspotLogin({ user: 'tn-local', password: 'pin1', mac: MAC });
    expect(ok).to.include({ ok: true, radius: false });
    expect(active(sim)[0]).to.include({
      radius: 'false',
      'session-time-left': '10m',
      'limit-bytes-total': '1000000',
    });
    // one session per user (shared-users=1)
    expect(
      await sim.hotspotLogin({ user: 'tn-local', password: 'pin1', mac: 'AA:BB:CC:10:20:39' }),
    ).to.include({
      reason: 'no more sessions are allowed for user',
    });
    await sim.advanceTraffic('tn-local', { bytesIn: 1000, bytesOut: 5000, seconds: 240 });
    const user = (): Record<string, string> =>
      sim.state.table('/ip/hotspot/user').findBy('name', 'tn-local')?.props ?? {};
    expect(user()).to.include({ uptime: '4m', 'bytes-in': '1000', 'bytes-out': '5000' });
    expect((await sim.advanceTraffic('tn-local', { seconds: 360 })).ended).to.equal('Session-Timeout');
    expect(await sim.hotspotLogin({ user: 'tn-local', password: 'pin1', mac: MAC })).to.include({
      reason: 'user tn-local has reached uptime limit',
    });
    expect(radius.received).to.have.length(0);
  });

  it('checks local users first even with use-radius=yes, and logs in through /ip/hotspot/active/login', async () => {
    await setup();
    await sim.runScript('/ip hotspot user add name=tn-dual password=d');
    expect(await sim.hotspotLogin({ user: 'tn-dual', password: 'd', mac: MAC })).to.include({
      radius: false,
    });
    expect(radius.received).to.have.length(0);

    radius.users.set('tn-api', { password: 'a' });
    const api = await connectApi(sim);
    await api.write('/ip/hotspot/active/login', [
      '=user=tn-api',
      '=password=a',
      '=mac-address=AA:BB:CC:10:20:40',
      '=ip=10.5.50.90',
    ]);
    const msg = await api
      .write('/ip/hotspot/active/login', [
        '=user=tn-api',
        '=password=wrong',
        '=mac-address=AA:BB:CC:10:20:41',
      ])
      .then(
        () => 'resolved',
        (e: Error) => e.message,
      );
    await api.close();
    expect(msg).to.equal('voucher inconnu');
    expect(active(sim).find((a) => a.user === 'tn-api')).to.include({
      address: '10.5.50.90',
      radius: 'true',
    });
  });

  it('radiusUnreachable: requests never leave, or replies never come back', async () => {
    await setup();
    radius.users.set('tn-x', { password: 'x' });
    sim.faults.set({ radiusUnreachable: true });
    expect(await sim.hotspotLogin({ user: 'tn-x', password: 'x', mac: MAC })).to.include({
      reason: 'RADIUS server is not responding',
    });
    expect(radius.received).to.have.length(0);
    sim.faults.set({ radiusUnreachable: 'replies' });
    expect((await sim.hotspotLogin({ user: 'tn-x', password: 'x', mac: MAC })).ok).to.equal(false);
    expect(radius.received.filter((r) => r.code === 'Access-Request')).to.have.length(3);
    sim.faults.clear();
    expect((await sim.hotspotLogin({ user: 'tn-x', password: 'x', mac: MAC })).ok).to.equal(true);
  });

  it('sends Interim-Updates on timers when interimTimers is on', async () => {
    await setup({ interimTimers: true }, 'radius-interim-update=100ms');
    radius.users.set('tn-timer', { password: 't' });
    await sim.hotspotLogin({ user: 'tn-timer', password: 't', mac: MAC });
    await radius.waitFor(() => radius.accounting('Interim-Update').length >= 2, 2000);
  });

  it('/radius incoming: Disconnect-Request ends the session it identifies, by address; others are NAKed', async () => {
    await setup({ radiusIncomingPort: 0 });
    radius.users.set('tn-dm', { password: 'd' });
    await sim.hotspotLogin({ user: 'tn-dm', password: 'd', mac: MAC });
    expect(await sim.radiusIncomingPort()).to.equal(undefined);
    await sim.runScript('/radius incoming set accept=yes');
    const port = await sim.radiusIncomingPort();
    expect(port).to.be.a('number');
    const sessionId = String(radius.accounting('Start')[0]?.attributes['Acct-Session-Id']);
    const ip = String(radius.accounting('Start')[0]?.attributes['Framed-IP-Address']);

    const ask = async (attributes: unknown[]): Promise<string> => {
      ensureMikrotikDictionary();
      const socket = createSocket('udp4');
      const packet = radiusCodec.encode({
        code: 'Disconnect-Request',
        secret: radius.secret,
        identifier: 7,
        attributes,
      });
      const reply = new Promise<Buffer>((resolve) => socket.once('message', resolve));
      socket.send(packet, port ?? 0, '127.0.0.1');
      const raw = await reply;
      socket.close();
      return radiusCodec.decode({ packet: raw, secret: radius.secret }).code;
    };
    expect(await ask([['Acct-Session-Id', 'ffffffff']])).to.equal('Disconnect-NAK');
    // Without the host's address the router cannot tell which host: nothing ends.
    expect(
      await ask([
        ['Acct-Session-Id', sessionId],
        ['User-Name', 'tn-dm'],
      ]),
    ).to.equal('Disconnect-NAK');
    // Every attribute given must be the session's.
    expect(
      await ask([
        ['Framed-IP-Address', ip],
        ['User-Name', 'someone-else'],
      ]),
    ).to.equal('Disconnect-NAK');
    expect(active(sim)).to.have.length(1);
    // Stuck: ACKed, and the session goes on.
    sim.faults.set({ stuckSessions: ['tn-dm'] });
    const full = [
      ['Framed-IP-Address', ip],
      ['User-Name', 'tn-dm'],
      ['Acct-Session-Id', sessionId],
    ];
    expect(await ask(full)).to.equal('Disconnect-ACK');
    await sim.flushRadius();
    expect(active(sim)).to.have.length(1);
    sim.faults.clear();
    expect(await ask(full)).to.equal('Disconnect-ACK');
    await sim.flushRadius();
    expect(active(sim)).to.have.length(0);
    expect(radius.accounting('Stop')[0]?.attributes['Acct-Terminate-Cause']).to.equal('Admin-Reset');
  });
});
