// Client equipment with the real pieces over real sockets: the controller, RouterOS simulators
// (7.19 and 6.49) with LAN devices that really answer HTTP behind the simulator's dst-nat, and the
// real agent runtime. The router's menus and a TCP connection through the forward are the proof.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { newId } from '../../../controller/core/ids.js';
import { forEachDatabase } from '../../support/databases.js';
import { SIM_PASSWORD, startLiveStack, type LiveSite, type LiveStack } from '../../support/live-site.js';
import { startLoopbackAgent } from '../../support/loopback-agent.js';
import { freePortBlock } from '../../support/free-port.js';
import { bigDigest, MIB, numbered, serveBulk } from '../../support/lan-http-device.js';
import { eventually } from '../hub/hub-fixture.js';
import { STREAM_BYTES_FEATURE } from '../../../protocol/index.js';

const SERIAL_7 = '48A98A0E7019';
const SERIAL_6 = '48A98A0E6049';
const AP_MAC = '24:A4:3C:10:00:20';
const CAM_MAC = '18:80:25:10:00:21';
const BASE = '/api/v1/clients/topology';

/** 100 MB: what `/big` streams without `?mib=`. */
const BIG_BYTES = 100 * MIB;

/**
 * An HTTP device: `/big` streams 100 MB (with backpressure; `?mib=<n>` n MiB), each MiB numbered,
 * a POST to `/digest` answers its body's length and SHA-256, any other POST echoes its body, anything else
 * answers `<name> <method> <path>`; the `Authorization` it received is named in `x-seen-auth`, the
 * connection it came on (the router's side of it) in `x-connection`, and `sockets` holds them.
 */
async function httpDevice(
  name: string,
): Promise<{ server: Server; port: number; sockets: Map<string, Socket> }> {
  const sockets = new Map<string, Socket>();
  const server = createServer((req, res) => {
    sockets.set(String(req.socket.remotePort), req.socket);
    res.setHeader('x-connection', String(req.socket.remotePort));
    res.setHeader('x-seen-auth', req.headers.authorization ?? 'none');
    res.setHeader('x-seen-cookie', req.headers.cookie ?? 'none');
    if (serveBulk(req, res, 100)) return;
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.end(`${name} POST ${req.headers['content-type']} ${body}`));
      return;
    }
    res.setHeader('content-type', 'text/plain');
    res.end(`${name} ${req.method} ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, sockets };
}

/** GET through the router's forward (the way the agent dials it); the body, or the error's code. */
function throughForward(port: number, path = '/', host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    // a new connection each time: one already tracked would outlive a rule removed meanwhile
    const req = httpRequest({ host, port, path, timeout: 1500, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('timeout', () => req.destroy(new Error('TIMEOUT')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

forEachDatabase('client equipment end to end (agent runtime, RouterOS 7.19 and 6.49)', (database) => {
  let stack: LiveStack;
  let a: LiveSite;
  let b: LiveSite;
  const servers: Server[] = [];
  let ports = 0;
  const api = (method: string, path: string, body?: unknown, token?: string) =>
    stack.t.request(method, `${BASE}${path}`, {
      token: token ?? stack.client.token,
      ...(body !== undefined ? { body } : {}),
    });
  const natRules = (sim: RouterSim) =>
    sim.state
      .table('/ip/firewall/nat')
      .list()
      .filter((r) => (r.props.comment ?? '').startsWith('ticketnet:'));
  const ruleOf = (sim: RouterSim, id: string) =>
    natRules(sim).filter((r) => r.props.comment === `ticketnet:${id}`);
  const leaseOf = (sim: RouterSim, mac: string) =>
    sim.state.table('/ip/dhcp-server/lease').findBy('mac-address', mac)!;
  const device = {
    name: 'AP toit',
    device_type: 'AP',
    lan_ip: '192.168.50.20',
    service_protocol: 'http',
    service_port: 80,
    mac_address: AP_MAC,
  };
  let apId = '';
  let apPort = 0;
  let apSockets = new Map<string, Socket>();

  before(async function () {
    this.timeout(60_000);
    // the dst-nat ports the simulators will listen on, free on both routers' addresses
    ports = await freePortBlock(10, ['127.0.0.1', '127.0.0.2']);
    stack = await startLiveStack(database, {
      config: {
        equipmentPorts: `${ports}-${ports + 9}`,
        equipmentDeviceDomain: 'devices.test',
        equipmentDeviceScheme: 'http',
      },
      equipment: { relayTimeoutMs: 1500, relayKeepIdleMs: 1000 },
    });
    // both restarted once enrolled, so their hello names their link features; b's are an older
    // version 3 agent's (raw stream bytes only: HMAC-SHA256 and 64 KiB chunks on its link)
    a = await stack.addSite({ serial: SERIAL_7, version: '7.19', identity: 'Site-7', hello: true });
    b = await stack.addSite({
      serial: SERIAL_6,
      version: '6.49.10',
      identity: 'Site-6',
      host: '127.0.0.2',
      hello: true,
      features: [STREAM_BYTES_FEATURE],
    });
    const ap = await httpDevice('ap');
    const cam = await httpDevice('cam');
    const ap6 = await httpDevice('ap6');
    servers.push(ap.server, cam.server, ap6.server);
    apSockets = ap.sockets;
    a.sim.lan.addDevice({
      address: '192.168.50.20',
      mac: AP_MAC,
      hostName: 'ap-toit',
      ports: { 80: ap.port },
    });
    a.sim.lan.addDevice({
      address: '192.168.50.21',
      mac: CAM_MAC,
      hostName: 'cam',
      ports: { 80: cam.port },
      lease: 'none',
    });
    b.sim.lan.addDevice({ address: '192.168.50.30', mac: AP_MAC, hostName: 'ap6', ports: { 80: ap6.port } });
  });
  after(async () => {
    await stack?.close();
    for (const s of servers) s.close();
  });

  it('scans the LAN through the agent: hotspot clients hidden and counted, vendors from the registry', async function () {
    this.timeout(20_000);
    const res = await api('GET', `/scan?router_serial=${SERIAL_7}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const { discovered, hotspot_clients_hidden } = res.body.data;
    // the WAN gateway is a private address the router sees too (an ISP box): offered like the others
    expect(discovered.map((d: { lan_ip: string }) => d.lan_ip)).to.deep.equal([
      '192.168.1.1',
      '192.168.50.20',
      '192.168.50.21',
    ]);
    expect(discovered[1]).to.deep.equal({
      lan_ip: '192.168.50.20',
      interface: 'bridge-lan',
      mac: AP_MAC,
      hostname: 'ap-toit',
      already_added: false,
      vendor: 'Ubiquiti Inc',
      vendor_logo: 'ubiquiti',
      vendor_reason: null,
    });
    expect(discovered[2]).to.include({ vendor_logo: 'hikvision', hostname: null });
    // the seeded hotspot network's clients (leases and ARP on bridge-hotspot)
    expect(hotspot_clients_hidden).to.equal(8);
    const all = await api('GET', `/scan?router_serial=${SERIAL_7}&all=true`);
    expect(all.body.data.discovered.length).to.be.greaterThan(10);
    expect(all.body.data.hotspot_clients_hidden).to.equal(0);
  });

  it('creates a device with the link up: lease pinned, rule and probe placed, ACTIVE, pushed once', async function () {
    this.timeout(20_000);
    const res = await api('POST', '/devices', { router_serial: SERIAL_7, ...device });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const d = res.body.data;
    apId = d.id;
    apPort = d.access_endpoint.dstnat_port;
    expect(d).to.include({
      status: 'ACTIVE',
      pending_reason: null,
      vendor: 'Ubiquiti Inc',
      vendor_logo: 'ubiquiti',
    });
    expect(d.access_endpoint).to.deep.equal({
      dstnat_port: ports,
      nat_managed_by: 'backend',
      proxy_path: `${BASE}/access/${apId}`,
    });
    expect(d.nat_rule.router_commands[0]).to.include('/ip/dhcp-server/lease');
    expect(d.nat_rule.remove_command).to.include('/ip/firewall/nat remove');
    expect(JSON.stringify(d)).not.to.include('127.0.0.1:');

    const [rule, ...more] = ruleOf(a.sim, apId);
    expect(more).to.have.length(0);
    expect(rule!.props).to.include({
      chain: 'dstnat',
      action: 'dst-nat',
      protocol: 'tcp',
      'dst-port': String(ports),
      'to-addresses': '192.168.50.20',
      'to-ports': '80',
      'src-address': '127.0.0.1',
    });
    expect(leaseOf(a.sim, AP_MAC).props.dynamic).to.equal('false');
    const probe = a.sim.state.table('/tool/netwatch').findBy('comment', `ticketnet:${apId}`)!;
    expect(probe.props).to.include({ host: '192.168.50.20', type: 'tcp-conn', port: '80' });
    // the forward really reaches the device
    expect(await throughForward(apPort, '/status')).to.equal('ap GET /status');
    const notifications = stack.t.controller.services.notifications;
    expect(await notifications.exists(stack.client.id, 'EQUIPMENT_ADDED', `${apId}:added`)).to.equal(true);

    const scan = await api('GET', `/scan?router_serial=${SERIAL_7}`);
    expect(scan.body.data.discovered[1].already_added).to.equal(true);
  });

  it('verifies a healthy device; repair finds nothing to do', async function () {
    this.timeout(20_000);
    const v = await api('POST', `/devices/${apId}/verify`);
    expect(v.status, JSON.stringify(v.body)).to.equal(200);
    expect(v.body.data).to.deep.include({
      ok: true,
      reason: null,
      checks: {
        router_reachable: true,
        nat_rule_present: true,
        nat_rule_enabled: true,
        nat_rule_matches: true,
        lease_static: true,
        mac_matches_ip: true,
      },
      repair: { repairable: false },
    });
    const r = await api('POST', `/devices/${apId}/repair`);
    expect(r.status).to.equal(200);
    expect(r.body.data).to.include({ already_healthy: true, status: 'ACTIVE' });
  });

  it('relays the device through the agent: any method and path, our Authorization never forwarded', async function () {
    this.timeout(20_000);
    const get = await api('GET', `/access/${apId}/status.cgi?x=1`);
    expect(get.status).to.equal(200);
    expect(get.body).to.equal('ap GET /status.cgi?x=1');
    expect(get.headers['x-seen-auth']).to.equal('none');
    const root = await api('GET', `/access/${apId}`);
    expect(root.body).to.equal('ap GET /');
    const form = await stack.t.request('POST', `${BASE}/access/${apId}/login.cgi`, {
      token: stack.client.token,
      raw: 'user=admin&pass=x%26y',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).to.equal(200);
    expect(form.body).to.equal('ap POST application/x-www-form-urlencoded user=admin&pass=x%26y');
    const other = await stack.t.account('client');
    const foreign = await api('GET', `/access/${apId}/`, undefined, other.token);
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.code).to.equal('DEVICE_NOT_FOUND');
    expect((await stack.t.request('GET', `${BASE}/access/${apId}/`)).status).to.equal(401);
  });

  it('keeps the connection to the device between requests, and closes it once idle', async function () {
    this.timeout(20_000);
    const first = await api('GET', `/access/${apId}/a`);
    const second = await api('GET', `/access/${apId}/b`);
    expect(second.body).to.equal('ap GET /b');
    // one connection through the agent and the router's forward for both
    const connection = String(first.headers['x-connection']);
    expect(second.headers['x-connection']).to.equal(connection);
    const socket = apSockets.get(connection)!;
    expect(socket.destroyed).to.equal(false);
    // idle past the relay's keep time: closed at the controller, the agent and the router
    await eventually(
      async () => socket.destroyed,
      (closed) => closed,
      10_000,
    );
    const third = await api('GET', `/access/${apId}/c`);
    expect(third.body).to.equal('ap GET /c');
    expect(third.headers['x-connection']).not.to.equal(connection);
  });

  it('a signed link opens the device on its own host; a cookie keeps it; tampered or foreign links are 403', async function () {
    this.timeout(20_000);
    const session = await api('POST', `/devices/${apId}/access-session`);
    expect(session.status, JSON.stringify(session.body)).to.equal(200);
    const { access_url, access_path, ttl_seconds } = session.body.data;
    const host = `${apId}.devices.test`;
    expect(ttl_seconds).to.equal(300);
    expect(access_url).to.equal(`http://${host}${access_path}`);
    expect(access_path).to.match(/^\/\?st=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const opened = await stack.t.request('GET', `${access_path}&lang=fr`, { headers: { host } });
    expect(opened.status).to.equal(200);
    expect(opened.body).to.equal('ap GET /?lang=fr');
    const setCookie = String(opened.headers['set-cookie']);
    expect(setCookie).to.match(/^tn_device_access=/);
    expect(setCookie.toLowerCase()).not.to.include('domain=');
    expect(setCookie.toLowerCase()).to.include('httponly');
    const cookie = setCookie.split(';')[0]!;
    const asset = await stack.t.request('GET', '/js/app.js', {
      headers: { host, cookie: `${cookie}; sid=device-own` },
    });
    expect(asset.status).to.equal(200);
    expect(asset.body).to.equal('ap GET /js/app.js');
    expect(asset.headers['x-seen-cookie']).to.equal('sid=device-own');
    expect(asset.headers['x-seen-auth']).to.equal('none');

    const st = access_path.slice('/?st='.length);
    // One character of the MAC changed (never replaced by itself).
    const tampered = `${st.slice(0, -2)}${st.at(-2) === 'A' ? 'B' : 'A'}${st.slice(-1)}`;
    for (const [path, h] of [
      [`/?st=${tampered}`, host],
      [access_path, `${newId()}.devices.test`],
      ['/', host],
    ] as const) {
      const res = await stack.t.request('GET', path, { headers: { host: h } });
      expect(res.status, `${path} on ${h}`).to.equal(403);
      expect(res.body.error.code).to.equal('ACCESS_LINK_INVALID');
    }
    const other = await stack.t.account('client');
    const foreign = await api('POST', `/devices/${apId}/access-session`, undefined, other.token);
    expect(foreign.status).to.equal(404);
  });

  /** GET through the relay as a browser would (its own connection); the body's length and SHA-256. */
  function digestThroughRelay(deviceId: string, path: string): Promise<string> {
    const { port } = new URL(stack.baseUrl);
    return new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: Number(port),
          path: `${BASE}/access/${deviceId}${path}`,
          headers: { authorization: `Bearer ${stack.client.token}` },
          agent: false,
        },
        (res) => {
          const hash = createHash('sha256');
          let n = 0;
          res.on('data', (c: Buffer) => {
            hash.update(c);
            n += c.length;
          });
          res.on('end', () => resolve(`${n} ${hash.digest('hex')}`));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('streams 100 MB through the relay, every byte in order', async function () {
    this.timeout(120_000);
    expect(await digestThroughRelay(apId, '/big')).to.equal(`${BIG_BYTES} ${bigDigest(100)}`);
  });

  it('negotiates per link: Poly1305 and 256 KiB chunks with an agent that names them, not with an older one; bodies whole both ways', async function () {
    this.timeout(60_000);
    const { hub } = stack.t.controller.services;
    expect(hub.featuresOf(a.allocationId)).to.deep.equal(['stream.bytes', 'stream.large', 'mac.poly1305']);
    expect(hub.featuresOf(b.allocationId)).to.deep.equal(['stream.bytes']);
    // a device behind the older agent's router, for this test
    const dev = await httpDevice('old');
    servers.push(dev.server);
    b.sim.lan.addDevice({ address: '192.168.50.39', mac: '24:A4:3C:10:00:39', ports: { 80: dev.port } });
    const created = await api('POST', '/devices', {
      ...device,
      name: 'AP ancien agent',
      router_serial: SERIAL_6,
      lan_ip: '192.168.50.39',
      mac_address: '24:A4:3C:10:00:39',
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const oldId = created.body.data.id as string;
    // 20 and 7 MiB down at once, then 1 MiB up, through each link (the device must start answering
    // within the relay's 1.5 s here, so the upload is no larger)
    const upload = numbered(0);
    const uploadDigest = `${upload.length} ${createHash('sha256').update(upload).digest('hex')}`;
    const post = (id: string) =>
      new Promise<string>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: Number(new URL(stack.baseUrl).port),
            method: 'POST',
            path: `${BASE}/access/${id}/digest`,
            headers: {
              authorization: `Bearer ${stack.client.token}`,
              'content-type': 'application/octet-stream',
            },
            agent: false,
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve(body));
          },
        );
        req.on('error', reject);
        // in small writes, as a browser's upload may come: the stream sends them together
        for (let at = 0; at < upload.length; at += 1000) req.write(upload.subarray(at, at + 1000));
        req.end();
      });
    for (const id of [apId, oldId]) {
      const results = await Promise.all([
        digestThroughRelay(id, '/big?mib=20'),
        digestThroughRelay(id, '/big?mib=7'),
      ]);
      expect(results, id).to.deep.equal([`${20 * MIB} ${bigDigest(20)}`, `${7 * MIB} ${bigDigest(7)}`]);
      expect(await post(id), id).to.equal(uploadDigest);
    }
    expect((await api('DELETE', `/devices/${oldId}`)).status).to.equal(200);
    b.sim.lan.setOnline('24:A4:3C:10:00:39', false);
  });

  it('a device that does not answer is 504', async function () {
    this.timeout(20_000);
    a.sim.lan.setOnline(AP_MAC, false);
    try {
      const res = await api('GET', `/access/${apId}/`);
      expect(res.status).to.equal(504);
      expect(res.body.error.code).to.equal('DEVICE_NOT_RESPONDING');
    } finally {
      a.sim.lan.setOnline(AP_MAC, true);
    }
  });

  const breakages: { reason: string; breakIt: (sim: RouterSim, id: string) => void }[] = [
    {
      reason: 'NAT_RULE_DISABLED',
      breakIt: (sim, id) =>
        sim.state.table('/ip/firewall/nat').update(ruleOf(sim, id)[0]!, { disabled: 'true' }),
    },
    {
      reason: 'NAT_RULE_MISSING',
      breakIt: (sim, id) => sim.state.table('/ip/firewall/nat').delete(ruleOf(sim, id)[0]!),
    },
    {
      reason: 'NAT_RULE_MISMATCH',
      breakIt: (sim, id) =>
        sim.state.table('/ip/firewall/nat').update(ruleOf(sim, id)[0]!, { 'to-ports': '8080' }),
    },
  ];
  for (const { reason, breakIt } of breakages) {
    it(`${reason}: the forward breaks, verify says so, repair restores one rule`, async function () {
      this.timeout(20_000);
      breakIt(a.sim, apId);
      expect(await throughForward(apPort)).not.to.equal('ap GET /');
      const v = await api('POST', `/devices/${apId}/verify`);
      expect(v.body.data).to.include({ ok: false, reason, status: 'PENDING' });
      expect(v.body.data.repair).to.deep.equal({ repairable: true });
      const r = await api('POST', `/devices/${apId}/repair`);
      expect(r.status).to.equal(200);
      expect(r.body.data).to.include({
        repaired: true,
        reason_before: reason,
        reason_after: null,
        status: 'ACTIVE',
      });
      expect(ruleOf(a.sim, apId)).to.have.length(1);
      expect(await throughForward(apPort)).to.equal('ap GET /');
    });
  }

  it('a dynamic lease is not a failure; repair pins it', async function () {
    this.timeout(20_000);
    a.sim.state.table('/ip/dhcp-server/lease').update(leaseOf(a.sim, AP_MAC), { dynamic: 'true' });
    const v = await api('POST', `/devices/${apId}/verify`);
    expect(v.body.data).to.deep.include({ ok: true, reason: null, repair: { repairable: true } });
    expect(v.body.data.checks.lease_static).to.equal(false);
    const r = await api('POST', `/devices/${apId}/repair`);
    expect(r.body.data).to.include({ repaired: true, reason_before: null, reason_after: null });
    expect(leaseOf(a.sim, AP_MAC).props.dynamic).to.equal('false');
  });

  it('a device declared without a MAC: its lease is pinned by address, and repair pins it again', async function () {
    this.timeout(20_000);
    const mac = '24:A4:3C:10:00:23';
    a.sim.lan.addDevice({ address: '192.168.50.23', mac, hostName: 'sans-mac', ports: { 80: 1 } });
    const lease = () => a.sim.state.table('/ip/dhcp-server/lease').findBy('address', '192.168.50.23')!;
    expect(lease().props.dynamic).to.equal('true');
    const created = await api('POST', '/devices', {
      router_serial: SERIAL_7,
      name: 'Sans MAC',
      device_type: 'AP',
      lan_ip: '192.168.50.23',
      service_protocol: 'http',
      service_port: 80,
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data.status).to.equal('ACTIVE');
    expect(lease().props.dynamic).to.equal('false');
    // made dynamic again: verify says so, repair pins it and says repaired only once it is static
    a.sim.state.table('/ip/dhcp-server/lease').update(lease(), { dynamic: 'true' });
    const v = await api('POST', `/devices/${created.body.data.id}/verify`);
    expect(v.body.data.checks.lease_static).to.equal(false);
    const r = await api('POST', `/devices/${created.body.data.id}/repair`);
    expect(r.body.data).to.include({ repaired: true, reason_after: null });
    expect(r.body.data.verify.checks.lease_static).to.equal(true);
    expect(lease().props.dynamic).to.equal('false');
    expect((await api('DELETE', `/devices/${created.body.data.id}`)).status).to.equal(200);
    a.sim.lan.setOnline(mac, false);
  });

  it('DEVICE_NOT_SEEN (device off) and DEVICE_IP_CHANGED (moved) need a human; no rule is replayed', async function () {
    this.timeout(20_000);
    a.sim.lan.setOnline(AP_MAC, false);
    const off = await api('POST', `/devices/${apId}/repair`);
    expect(off.body.data).to.include({
      needs_human: true,
      reason_before: 'DEVICE_NOT_SEEN',
      status: 'ACTIVE',
    });
    expect(off.body.data.note).to.match(/allumé/);
    a.sim.lan.setOnline(AP_MAC, true);

    a.sim.lan.moveDevice(AP_MAC, '192.168.50.99');
    const before = JSON.stringify(ruleOf(a.sim, apId).map((r) => r.props));
    const moved = await api('POST', `/devices/${apId}/repair`);
    expect(moved.body.data).to.include({ needs_human: true, reason_before: 'DEVICE_IP_CHANGED' });
    expect(moved.body.data.verify.checks.mac_matches_ip).to.equal(false);
    expect(JSON.stringify(ruleOf(a.sim, apId).map((r) => r.props))).to.equal(before);
    a.sim.lan.moveDevice(AP_MAC, '192.168.50.20');
    expect((await api('POST', `/devices/${apId}/verify`)).body.data.reason).to.equal(null);
  });

  it('reads the probe through the agent: the monitoring job sets online', async function () {
    this.timeout(20_000);
    await a.sim.lan.probeAll();
    const admin = await stack.t.admin();
    const run = await stack.t.request('POST', '/api/v1/admin/jobs/EQUIPMENT_MONITOR/run', {
      token: admin.token,
    });
    expect(run.status, JSON.stringify(run.body)).to.equal(200);
    const list = await api('GET', '/devices');
    const ap = list.body.data.find((x: { id: string }) => x.id === apId);
    expect(ap).to.include({ online: true, monitored: true });
    expect(ap.vpn_health).to.include({ link_state: 'CONNECTED', reachable: true });
    expect(ap.hardware).to.deep.equal({ anchored: true, needs_revalidation: false, reason: null });
  });

  it('agent killed: ROUTER_UNREACHABLE, nothing demoted; a device added meanwhile is resumed at reconnection', async function () {
    this.timeout(40_000);
    await a.agent.stop();
    await eventually(
      () => stack.allocation(a.allocationId),
      (x) => x.link_state === 'DISCONNECTED',
      10_000,
    );
    const v = await api('POST', `/devices/${apId}/verify`);
    expect(v.body.data).to.deep.include({
      ok: false,
      reason: 'ROUTER_UNREACHABLE',
      status: 'ACTIVE',
      checks: {
        router_reachable: false,
        nat_rule_present: null,
        nat_rule_enabled: null,
        nat_rule_matches: null,
        lease_static: null,
        mac_matches_ip: null,
      },
    });
    const r = await api('POST', `/devices/${apId}/repair`);
    expect(r.body.data).to.include({
      repaired: false,
      reason_before: 'ROUTER_UNREACHABLE',
      status: 'ACTIVE',
    });
    // the relay says the link is down (503), and the device stays ACTIVE
    const relayed = await api('GET', `/access/${apId}/`);
    expect(relayed.status).to.equal(503);
    expect(relayed.body.error.code).to.equal('EQUIPMENT_LINK_DOWN');

    const cam = await api('POST', '/devices', {
      router_serial: SERIAL_7,
      name: 'Caméra cour',
      device_type: 'camera',
      lan_ip: '192.168.50.21',
      service_protocol: 'http',
      service_port: 80,
      mac_address: CAM_MAC,
    });
    expect(cam.status, JSON.stringify(cam.body)).to.equal(201);
    expect(cam.body.data).to.include({
      status: 'PENDING',
      pending_reason: 'ROUTER_UNREACHABLE',
      type: 'CAMERA',
    });
    expect(cam.body.data.access_endpoint.nat_managed_by).to.equal('app');
    expect(ruleOf(a.sim, cam.body.data.id)).to.have.length(0);
    const pending = await api('GET', `/access/${cam.body.data.id}/`);
    expect(pending.status).to.equal(409);
    expect(pending.body.error.code).to.equal('DEVICE_NOT_ACTIVE');

    a.agent = await startLoopbackAgent({
      stateDir: a.stateDir,
      controllerUrl: stack.baseUrl,
      enrolCode: 'AAAA-AAAA-AAAA',
      router: { port: a.sim.port, password: SIM_PASSWORD },
    });
    const list = await eventually(
      () => api('GET', '/devices'),
      (res) => res.body.data.find((x: { id: string }) => x.id === cam.body.data.id)?.status === 'ACTIVE',
      15_000,
    );
    const resumed = list.body.data.find((x: { id: string }) => x.id === cam.body.data.id);
    expect(resumed.access_endpoint.nat_managed_by).to.equal('backend');
    expect(ruleOf(a.sim, cam.body.data.id)).to.have.length(1);
    // a device without lease gets a static one for its MAC
    expect(leaseOf(a.sim, CAM_MAC).props).to.include({ address: '192.168.50.21', dynamic: 'false' });
    expect(await throughForward(resumed.access_endpoint.dstnat_port, '/x')).to.equal('cam GET /x');
  });

  it('RouterOS 6.49: v6 syntax, ICMP probe, verify and repair', async function () {
    this.timeout(20_000);
    const res = await api('POST', '/devices', {
      router_serial: SERIAL_6,
      ...device,
      lan_ip: '192.168.50.30',
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const d = res.body.data;
    expect(d.status).to.equal('ACTIVE');
    expect(d.nat_rule.router_commands[1]).to.include('/ip firewall nat add ');
    expect(d.nat_rule.router_commands[2]).not.to.include('tcp-conn');
    const probe = b.sim.state.table('/tool/netwatch').findBy('comment', `ticketnet:${d.id}`)!;
    expect(probe.props.port).to.equal(undefined);
    expect(await throughForward(d.access_endpoint.dstnat_port, '/', '127.0.0.2')).to.equal('ap6 GET /');
    expect((await api('POST', `/devices/${d.id}/verify`)).body.data.ok).to.equal(true);
    b.sim.state.table('/ip/firewall/nat').update(ruleOf(b.sim, d.id)[0]!, { disabled: 'true' });
    const r = await api('POST', `/devices/${d.id}/repair`);
    expect(r.body.data).to.include({ repaired: true, reason_before: 'NAT_RULE_DISABLED', status: 'ACTIVE' });
  });

  it("pushNat false: PENDING, the app's commands run on the router, verify promotes it", async function () {
    this.timeout(20_000);
    const res = await api('POST', '/devices', {
      router_serial: SERIAL_6,
      ...device,
      name: 'AP manuel',
      lan_ip: '192.168.50.31',
      mac_address: null,
      pushNat: false,
    });
    expect(res.body.data).to.include({ status: 'PENDING', pending_reason: 'PUSH_NAT_DISABLED' });
    expect(res.body.data.access_endpoint.nat_managed_by).to.equal('app');
    const id = res.body.data.id;
    expect(ruleOf(b.sim, id)).to.have.length(0);
    for (const command of res.body.data.nat_rule.router_commands) {
      const ran = await b.sim.runScript(command);
      expect(ran.ok, `${command}: ${ran.error}`).to.equal(true);
    }
    // idempotent: run again, still one rule
    for (const command of res.body.data.nat_rule.router_commands) await b.sim.runScript(command);
    expect(ruleOf(b.sim, id)).to.have.length(1);
    const v = await api('POST', `/devices/${id}/verify`);
    expect(v.body.data).to.include({ status: 'ACTIVE', reason: 'DEVICE_NOT_SEEN' });
  });

  it('concurrent creations get distinct ports', async function () {
    this.timeout(30_000);
    const results = await Promise.all(
      [40, 41, 42, 43, 44].map((n) =>
        api('POST', '/devices', {
          router_serial: SERIAL_6,
          ...device,
          lan_ip: `192.168.50.${n}`,
          mac_address: null,
          pushNat: false,
        }),
      ),
    );
    for (const r of results) expect(r.status, JSON.stringify(r.body)).to.equal(201);
    const taken = results.map((r) => r.body.data.access_endpoint.dstnat_port);
    expect(new Set(taken).size).to.equal(5);
    // the range holds 10 ports per router: fill it, then the next is refused
    for (let n = 45; n < 48; n++) {
      const fill = await api('POST', '/devices', {
        router_serial: SERIAL_6,
        ...device,
        lan_ip: `192.168.50.${n}`,
        pushNat: false,
      });
      expect(fill.status).to.equal(201);
    }
    const over = await api('POST', '/devices', {
      router_serial: SERIAL_6,
      ...device,
      lan_ip: '192.168.50.48',
      pushNat: false,
    });
    expect(over.status).to.equal(409);
    expect(over.body.error.code).to.equal('EQUIPMENT_PORTS_EXHAUSTED');
  });

  it("another tenant's device is not found anywhere; unknown and foreign serials are ROUTER_NOT_OWNED", async function () {
    this.timeout(20_000);
    const other = await stack.t.account('client');
    const token = other.token;
    expect((await api('GET', '/devices', undefined, token)).body.data).to.deep.equal([]);
    for (const [method, path, body] of [
      ['POST', `/devices/${apId}/verify`],
      ['POST', `/devices/${apId}/repair`],
      ['POST', `/devices/${apId}/monitor`, { enabled: false }],
      ['DELETE', `/devices/${apId}`],
    ] as const) {
      const res = await api(method, path, body, token);
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect(res.body.error.code).to.equal('DEVICE_NOT_FOUND');
    }
    for (const serial of [SERIAL_7, 'FFFF00000000']) {
      const scan = await api('GET', `/scan?router_serial=${serial}`, undefined, token);
      expect(scan.status).to.equal(404);
      expect(scan.body.error.code).to.equal('ROUTER_NOT_OWNED');
      const add = await api('POST', '/devices', { router_serial: serial, ...device }, token);
      expect(add.status).to.equal(404);
      expect(add.body.error.code).to.equal('ROUTER_NOT_OWNED');
    }
    expect(ruleOf(a.sim, apId)).to.have.length(1);
  });

  it('deletes a device: rule and probe gone from the router, remove_command returned', async function () {
    this.timeout(20_000);
    const res = await api('DELETE', `/devices/${apId}`);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({ deleted: true, removed_on_router: true });
    expect(res.body.data.remove_command).to.include(`ticketnet:${apId}`);
    expect(ruleOf(a.sim, apId)).to.have.length(0);
    expect(a.sim.state.table('/tool/netwatch').findBy('comment', `ticketnet:${apId}`)).to.equal(undefined);
    expect(await throughForward(apPort)).to.be.oneOf(['ECONNREFUSED', 'ECONNRESET']);
    expect((await api('POST', `/devices/${apId}/verify`)).status).to.equal(404);
  });

  it("the RADIUS topology shows the PRIMARY's devices and web access, and the capabilities", async function () {
    this.timeout(30_000);
    const enrol = await stack.radius('POST', '/nas', { router_serial: SERIAL_7 });
    expect(enrol.status, JSON.stringify(enrol.body)).to.equal(201);
    const res = await stack.radius('GET', '/topology');
    expect(res.status).to.equal(200);
    const { primary, capabilities } = res.body;
    expect(primary).to.include({ shortname: 'Site-7', allocation_id: a.allocationId });
    expect(primary.devices.map((d: { lan_ip: string }) => d.lan_ip)).to.deep.equal(['192.168.50.21']);
    expect(primary.devices[0].hardware).to.deep.equal({
      anchored: true,
      needs_revalidation: false,
      reason: null,
    });
    expect(primary.web_access).to.include({ reachable: true });
    expect(capabilities).to.deep.include({
      enforced: false,
      can_add_devices: false,
      reason: 'SUIVI_PRO_REQUIRED',
    });
    // still the client's router for the equipment: the registry agrees with the slot
    const scan = await api('GET', `/scan?router_serial=${SERIAL_7}`);
    expect(scan.status).to.equal(200);
  });
});
