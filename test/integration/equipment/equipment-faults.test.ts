// Client equipment when something fails on the way, end to end over real sockets (controller,
// RouterOS simulator, the real agent): a router that refuses to pin a device's lease or loses the
// lease meanwhile, and the agent's link lost in the middle of a relayed transfer. What the client
// is told must be what the router holds, and nothing may be left half placed.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ROUTER_BUSY_MESSAGE } from '../../routeros-sim/faults.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { forEachDatabase } from '../../support/databases.js';
import { freePortBlock } from '../../support/free-port.js';
import { MIB, serveBulk } from '../../support/lan-http-device.js';
import { startLinkCutter, type LinkCutter } from '../../support/link-cutter.js';
import { startLiveStack, type LiveSite, type LiveStack } from '../../support/live-site.js';
import { eventually } from '../hub/hub-fixture.js';

const SERIAL = '48A98A0E7119';
const BASE = '/api/v1/clients/topology';
const MAKE_STATIC = '/ip/dhcp-server/lease/make-static';
const AP_MAC = '24:A4:3C:10:01:20';
const CPE_MAC = '24:A4:3C:10:01:22';

/**
 * An HTTP device: `/big?mib=<n>` streams n MiB (with backpressure), a POST to `/digest` answers its
 * body's length and SHA-256, anything else `dev <method> <path>`; `bigSockets` are the connections
 * `/big` was asked on (the router's side of them).
 */
async function httpDevice(): Promise<{ server: Server; port: number; bigSockets: Socket[] }> {
  const bigSockets: Socket[] = [];
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/big')) bigSockets.push(req.socket);
    if (serveBulk(req, res, 1)) return;
    res.end(`dev ${req.method} ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, bigSockets };
}

forEachDatabase(
  'client equipment faults end to end (lease pin refused, link lost mid-transfer)',
  (database) => {
    let stack: LiveStack;
    let cutter: LinkCutter;
    let a: LiveSite;
    let dev: Awaited<ReturnType<typeof httpDevice>>;
    let apId = '';
    const api = (method: string, path: string, body?: unknown) =>
      stack.t.request(method, `${BASE}${path}`, {
        token: stack.client.token,
        ...(body !== undefined ? { body } : {}),
      });
    const ruleOf = (sim: RouterSim, id: string) =>
      sim.state
        .table('/ip/firewall/nat')
        .list()
        .filter((r) => r.props.comment === `ticketnet:${id}`);
    const probeOf = (sim: RouterSim, id: string) =>
      sim.state.table('/tool/netwatch').findBy('comment', `ticketnet:${id}`);
    const leaseOf = (sim: RouterSim, mac: string) =>
      sim.state.table('/ip/dhcp-server/lease').findBy('mac-address', mac);
    const listed = async (id: string) =>
      (await api('GET', '/devices')).body.data.find((d: { id: string }) => d.id === id);
    const added = (id: string) =>
      stack.t.controller.services.notifications.exists(stack.client.id, 'EQUIPMENT_ADDED', `${id}:added`);
    const declare = (name: string, lanIp: string, mac: string) =>
      api('POST', '/devices', {
        router_serial: SERIAL,
        name,
        device_type: 'AP',
        lan_ip: lanIp,
        service_protocol: 'http',
        service_port: 80,
        mac_address: mac,
      });

    before(async function () {
      this.timeout(60_000);
      const ports = await freePortBlock(10, ['127.0.0.1']);
      stack = await startLiveStack(database, {
        config: {
          equipmentPorts: `${ports}-${ports + 9}`,
          equipmentDeviceDomain: 'devices.test',
          equipmentDeviceScheme: 'http',
        },
        // idle connections to the device outlive the link's outage: the pool must not hand out dead ones
        equipment: { relayTimeoutMs: 5000, relayKeepIdleMs: 60_000 },
      });
      cutter = await startLinkCutter(stack.baseUrl);
      // the agent reaches the controller through the relay the test cuts; hello: this build's features
      a = await stack.addSite({ serial: SERIAL, identity: 'Site-F', controllerUrl: cutter.url, hello: true });
      dev = await httpDevice();
      a.sim.lan.addDevice({ address: '192.168.50.20', mac: AP_MAC, hostName: 'ap', ports: { 80: dev.port } });
      a.sim.lan.addDevice({
        address: '192.168.50.22',
        mac: CPE_MAC,
        hostName: 'cpe',
        ports: { 80: dev.port },
      });
    });
    after(async () => {
      await stack?.close();
      await cutter?.close();
      dev?.server.close();
    });

    it('a router that refuses to pin the lease: recorded PENDING, nothing placed, repair says repaired false until it accepts', async function () {
      this.timeout(30_000);
      a.sim.faults.set({ failCommand: { path: MAKE_STATIC, message: ROUTER_BUSY_MESSAGE } });
      const res = await declare('AP refusé', '192.168.50.20', AP_MAC);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      apId = res.body.data.id;
      expect(res.body.data).to.include({ status: 'PENDING', pending_reason: 'ROUTER_COMMAND_FAILED' });
      expect(res.body.data.access_endpoint.nat_managed_by).to.equal('app');
      // the app's plan is still given, the lease first
      expect(res.body.data.nat_rule.router_commands[0]).to.include('/ip/dhcp-server/lease');
      // nothing half placed: the lease comes first, so no rule towards an unreserved address, no probe
      expect(ruleOf(a.sim, apId)).to.have.length(0);
      expect(probeOf(a.sim, apId)).to.equal(undefined);
      expect(leaseOf(a.sim, AP_MAC)!.props.dynamic).to.equal('true');
      expect(await added(apId)).to.equal(false);
      expect(await listed(apId)).to.include({ status: 'PENDING', pending_reason: 'ROUTER_COMMAND_FAILED' });
      for (const [method, path] of [
        ['GET', `/access/${apId}/`],
        ['POST', `/devices/${apId}/access-session`],
      ] as const) {
        const refused = await api(method, path);
        expect(refused.status, path).to.equal(409);
        expect(refused.body.error.code).to.equal('DEVICE_NOT_ACTIVE');
      }

      // still refusing: repair tries, and says it did not repair
      const still = await api('POST', `/devices/${apId}/repair`);
      expect(still.status).to.equal(200);
      expect(still.body.data).to.include({
        repaired: false,
        reason_before: 'NAT_RULE_MISSING',
        reason_after: 'NAT_RULE_MISSING',
        status: 'PENDING',
      });
      expect(still.body.data.verify.checks).to.include({ nat_rule_present: false, lease_static: false });
      expect(ruleOf(a.sim, apId)).to.have.length(0);
      expect(probeOf(a.sim, apId)).to.equal(undefined);
      expect(await added(apId)).to.equal(false);
      expect((await listed(apId)).status).to.equal('PENDING');

      a.sim.faults.clear();
      const fixed = await api('POST', `/devices/${apId}/repair`);
      expect(fixed.body.data).to.include({
        repaired: true,
        reason_before: 'NAT_RULE_MISSING',
        reason_after: null,
        status: 'ACTIVE',
      });
      expect(ruleOf(a.sim, apId)).to.have.length(1);
      expect(probeOf(a.sim, apId)).not.to.equal(undefined);
      expect(leaseOf(a.sim, AP_MAC)!.props.dynamic).to.equal('false');
      expect(await added(apId)).to.equal(true);
      const relayed = await api('GET', `/access/${apId}/ok`);
      expect(relayed.status).to.equal(200);
      expect(relayed.body).to.equal('dev GET /ok');
    });

    it('an ACTIVE device whose lease the router refuses to pin again: repaired false, its access left as it was', async function () {
      this.timeout(30_000);
      a.sim.state.table('/ip/dhcp-server/lease').update(leaseOf(a.sim, AP_MAC)!, { dynamic: 'true' });
      const rule = JSON.stringify(ruleOf(a.sim, apId).map((r) => r.props));
      a.sim.faults.set({ failCommand: { path: MAKE_STATIC, message: ROUTER_BUSY_MESSAGE } });
      try {
        const r = await api('POST', `/devices/${apId}/repair`);
        expect(r.status).to.equal(200);
        expect(r.body.data).to.include({
          repaired: false,
          reason_before: null,
          reason_after: null,
          status: 'ACTIVE',
        });
        expect(r.body.data.verify.checks.lease_static).to.equal(false);
        expect(r.body.data.verify.repair).to.deep.equal({ repairable: true });
      } finally {
        a.sim.faults.clear();
      }
      expect(JSON.stringify(ruleOf(a.sim, apId).map((r) => r.props))).to.equal(rule);
      expect(leaseOf(a.sim, AP_MAC)!.props.dynamic).to.equal('true');
      expect(await listed(apId)).to.include({ status: 'ACTIVE', pending_reason: null });
      expect((await api('GET', `/access/${apId}/still`)).body).to.equal('dev GET /still');
      const again = await api('POST', `/devices/${apId}/repair`);
      expect(again.body.data).to.include({ repaired: true, reason_after: null });
      expect(leaseOf(a.sim, AP_MAC)!.props.dynamic).to.equal('false');
    });

    it('the lease vanishes between the read and the pin ("no such item"): PENDING, no rule; repair then reserves the address', async function () {
      this.timeout(30_000);
      a.sim.faults.set({ itemGone: { path: MAKE_STATIC } });
      const res = await declare('CPE', '192.168.50.22', CPE_MAC);
      a.sim.faults.clear();
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const id = res.body.data.id as string;
      expect(res.body.data).to.include({ status: 'PENDING', pending_reason: 'ROUTER_COMMAND_FAILED' });
      expect(leaseOf(a.sim, CPE_MAC)).to.equal(undefined);
      expect(ruleOf(a.sim, id)).to.have.length(0);
      expect(probeOf(a.sim, id)).to.equal(undefined);
      expect(await added(id)).to.equal(false);

      const r = await api('POST', `/devices/${id}/repair`);
      expect(r.body.data).to.include({ repaired: true, reason_before: 'NAT_RULE_MISSING', status: 'ACTIVE' });
      // the MAC has no lease any more: a static one keeps its address reserved
      expect(leaseOf(a.sim, CPE_MAC)!.props).to.include({ address: '192.168.50.22', dynamic: 'false' });
      expect(ruleOf(a.sim, id)).to.have.length(1);
      expect((await api('DELETE', `/devices/${id}`)).status).to.equal(200);
    });

    /** A GET through the relay on its own connection: the bytes received, and whether the answer was whole. */
    function bigThroughRelay(
      path: string,
      onBytes: (received: number) => void,
    ): Promise<{ status: number; expected: number; received: number; complete: boolean }> {
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          `${stack.baseUrl}${BASE}/access/${apId}${path}`,
          { headers: { authorization: `Bearer ${stack.client.token}` }, agent: false },
          (res) => {
            let received = 0;
            res.on('data', (c: Buffer) => {
              received += c.length;
              onBytes(received);
            });
            // 'close' comes whether the body ended or was cut; `complete` tells them apart
            res.on('error', () => undefined);
            res.on('close', () =>
              resolve({
                status: res.statusCode ?? 0,
                expected: Number(res.headers['content-length']),
                received,
                complete: res.complete,
              }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      });
    }

    it('the agent link lost during a relayed transfer: the answer is cut, the controller stays up, the next requests go through', async function () {
      this.timeout(60_000);
      // two connections to the device kept from before: one carries the transfer, one stays idle
      const warm = await Promise.all([api('GET', `/access/${apId}/w1`), api('GET', `/access/${apId}/w2`)]);
      for (const w of warm) expect(w.status).to.equal(200);
      const accepted = cutter.accepted;
      let cut = 0;
      const transfer = await bigThroughRelay('/big?mib=64', (received) => {
        if (cut === 0 && received >= MIB) {
          // the link is lost, and stays lost until the test lets it back
          cutter.hold(true);
          cut = cutter.cut();
        }
      });
      expect(cut).to.be.at.least(1);
      expect(transfer.status).to.equal(200);
      expect(transfer.expected).to.equal(64 * MIB);
      expect(transfer.complete).to.equal(false);
      expect(transfer.received).to.be.below(64 * MIB);

      // the controller notices and answers on, without demoting anything
      await stack.t.linkRecordedDown(a.allocationId);
      const down = await listed(apId);
      expect(down).to.include({ status: 'ACTIVE' });
      expect(down.vpn_health).to.include({ link_state: 'DISCONNECTED', reachable: false });
      for (const [method, path] of [
        ['GET', `/access/${apId}/during`],
        ['POST', `/devices/${apId}/access-session`],
      ] as const) {
        const refused = await api(method, path);
        expect(refused.status, path).to.equal(503);
        expect(refused.body.error.code).to.equal('EQUIPMENT_LINK_DOWN');
      }
      // the agent let go of its connection to the device through the router
      await eventually(
        async () => dev.bigSockets.every((s) => s.destroyed),
        (closed) => closed,
        10_000,
      );

      cutter.hold(false);
      await eventually(
        () => stack.allocation(a.allocationId),
        (x) => x.link_state === 'CONNECTED' && cutter.accepted > accepted,
        15_000,
      );
      await eventually(
        async () => stack.t.controller.services.hub.holds(a.allocationId),
        (held) => held,
        5000,
      );
      // the first requests after the reconnection, each once: a GET and a POST with a body (never sent twice)
      const after = await api('GET', `/access/${apId}/after`);
      expect(after.status, JSON.stringify(after.body)).to.equal(200);
      expect(after.body).to.equal('dev GET /after');
      const upload = Buffer.alloc(300_000, 'tn-relay-');
      const posted = await stack.t.request('POST', `${BASE}/access/${apId}/digest`, {
        token: stack.client.token,
        raw: upload.toString('latin1'),
        headers: { 'content-type': 'application/octet-stream' },
      });
      expect(posted.status, JSON.stringify(posted.body)).to.equal(200);
      expect(posted.body).to.equal(`${upload.length} ${createHash('sha256').update(upload).digest('hex')}`);
      const whole = await bigThroughRelay('/big?mib=4', () => undefined);
      expect(whole).to.deep.equal({ status: 200, expected: 4 * MIB, received: 4 * MIB, complete: true });
      const session = await api('POST', `/devices/${apId}/access-session`);
      expect(session.status).to.equal(200);
    });
  },
);
