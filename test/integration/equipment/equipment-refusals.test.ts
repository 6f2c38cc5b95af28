// Bad input on the equipment routes that open or watch a device, through the real pieces
// (controller, RouterOS simulator, the real agent, a device that answers HTTP): the signed link,
// the relay, the router's web access and the monitor switch. Each refusal has its status, its code
// and the error envelope, and changes nothing: not the devices as listed, not the router, not the
// topology's ports, and no request reaches the device.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forEachDatabase } from '../../support/databases.js';
import { freePortBlock } from '../../support/free-port.js';
import { startLiveStack, type LiveSite, type LiveStack } from '../../support/live-site.js';
import { startTestController } from '../../support/test-controller.js';

const SERIAL = '48A98A0E7219';
const OTHER_SERIAL = '48A98A0E7220';
const BASE = '/api/v1/clients/topology';
const UNKNOWN_ID = '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b';
const AP_MAC = '24:A4:3C:10:02:20';

/** Who calls: the device's owner, another client, accounts that are not clients, or nobody. */
type Caller = 'owner' | 'other' | 'technician' | 'admin' | 'none' | 'garbage' | 'basic';

interface Refusal {
  what: string;
  /** The path under the equipment base; `:ap` and `:pending` stand for the two devices' ids. */
  path: string;
  caller?: Caller;
  body?: unknown;
  raw?: { payload: string; type: string };
  status: number;
  code: string;
}

forEachDatabase('client equipment refuses bad input and changes nothing (live router)', (database) => {
  let stack: LiveStack;
  let site: LiveSite;
  let device: Server;
  let deviceHits = 0;
  let apId = '';
  let pendingId = '';
  const tokens = {} as Record<Exclude<Caller, 'none'>, string | undefined>;

  const call = (method: string, path: string, o: Omit<Refusal, 'what' | 'path' | 'status' | 'code'>) => {
    const caller = o.caller ?? 'owner';
    const headers: Record<string, string> = {};
    if (caller === 'basic') headers.authorization = 'Basic YWRtaW46YWRtaW4=';
    else if (caller !== 'none') headers.authorization = `Bearer ${tokens[caller]}`;
    if (o.raw) headers['content-type'] = o.raw.type;
    return stack.t.request(method, `${BASE}${path.replace(':ap', apId).replace(':pending', pendingId)}`, {
      headers,
      ...(o.body !== undefined ? { body: o.body } : {}),
      ...(o.raw ? { raw: o.raw.payload } : {}),
    });
  };

  /** What a refusal must leave as it was, read through other routes and on the router itself. */
  const observable = async () => {
    const list = await stack.t.request('GET', `${BASE}/devices`, { token: stack.client.token });
    expect(list.status).to.equal(200);
    const topology = await stack.radius('GET', '/topology');
    const marked = (menu: string) =>
      site.sim.state
        .table(menu)
        .list()
        .filter((r) => (r.props.comment ?? '').startsWith('ticketnet:'))
        .map((r) => r.props);
    return {
      devices: list.body.data.map((d: Record<string, unknown>) => ({
        id: d.id,
        status: d.status,
        pending_reason: d.pending_reason,
        monitored: d.monitored,
        online: d.online,
        access_endpoint: d.access_endpoint,
        hardware: d.hardware,
      })),
      web_access: topology.body.primary.web_access,
      rules: marked('/ip/firewall/nat'),
      probes: marked('/tool/netwatch'),
      leases: marked('/ip/dhcp-server/lease'),
      deviceHits,
    };
  };

  /** Runs each refusal with `method`: status, code and envelope, and nothing changed afterwards. */
  async function refuses(method: string, refusals: Refusal[]) {
    const before = await observable();
    for (const r of refusals) {
      const res = await call(method, r.path, r);
      const label = `${method} ${r.path}: ${r.what}`;
      expect(res.status, `${label} ${JSON.stringify(res.body)}`).to.equal(r.status);
      expect(res.body, label).to.deep.include({ success: false });
      expect(res.body.error, label).to.include({ code: r.code });
      expect(res.body.error.message, label).to.be.a('string').and.not.equal('');
      expect(res.body, label).not.to.have.property('data');
    }
    expect(await observable()).to.deep.equal(before);
  }

  before(async function () {
    this.timeout(60_000);
    const ports = await freePortBlock(10, ['127.0.0.1']);
    const webPorts = await freePortBlock(8, ['127.0.0.1']);
    stack = await startLiveStack(database, {
      config: {
        equipmentPorts: `${ports}-${ports + 9}`,
        webAccessPorts: `${webPorts}-${webPorts + 7}`,
        equipmentDeviceDomain: 'devices.test',
        equipmentDeviceScheme: 'http',
      },
    });
    site = await stack.addSite({ serial: SERIAL, identity: 'Site-R' });
    await site.sim.services.listen();
    device = createServer((req, res) => {
      deviceHits++;
      res.end(`dev ${req.method} ${req.url}`);
    });
    await new Promise<void>((r) => device.listen(0, '127.0.0.1', r));
    const port = (device.address() as AddressInfo).port;
    site.sim.lan.addDevice({ address: '192.168.50.20', mac: AP_MAC, hostName: 'ap', ports: { 80: port } });
    const fields = {
      router_serial: SERIAL,
      device_type: 'AP',
      service_protocol: 'http',
      service_port: 80,
    };
    const ap = await stack.t.request('POST', `${BASE}/devices`, {
      token: stack.client.token,
      body: { ...fields, name: 'AP', lan_ip: '192.168.50.20', mac_address: AP_MAC },
    });
    expect(ap.body.data?.status, JSON.stringify(ap.body)).to.equal('ACTIVE');
    apId = ap.body.data.id;
    const pending = await stack.t.request('POST', `${BASE}/devices`, {
      token: stack.client.token,
      body: { ...fields, name: 'Manuel', lan_ip: '192.168.50.21', pushNat: false },
    });
    expect(pending.body.data?.status, JSON.stringify(pending.body)).to.equal('PENDING');
    pendingId = pending.body.data.id;
    // the router is the PRIMARY: the topology shows its web access ports (none open yet)
    expect((await stack.radius('POST', '/nas', { router_serial: SERIAL })).status).to.equal(201);
    tokens.owner = stack.client.token;
    tokens.other = (await stack.t.account('client')).token;
    tokens.technician = (await stack.t.account('technician')).token;
    tokens.admin = (await stack.t.admin()).token;
    tokens.garbage = 'not-a-token';
    // the device answers through the relay: refusals below are refusals, not a broken path
    const ok = await call('GET', '/access/:ap/ok', {});
    expect(ok.body).to.equal('dev GET /ok');
  });
  after(async () => {
    await stack?.close();
    device?.close();
  });

  /** Refusals every device route gives, whatever the route does. */
  const callers: Refusal[] = [
    { what: 'no bearer', path: '', caller: 'none', status: 401, code: 'UNAUTHENTICATED' },
    { what: 'a bearer that is no token', path: '', caller: 'garbage', status: 401, code: 'UNAUTHENTICATED' },
    { what: 'another scheme', path: '', caller: 'basic', status: 401, code: 'UNAUTHENTICATED' },
    { what: 'a technician', path: '', caller: 'technician', status: 403, code: 'FORBIDDEN' },
    { what: 'an administrator', path: '', caller: 'admin', status: 403, code: 'FORBIDDEN' },
  ];
  /** Refusals of a device id, for a route under `prefix` and ending with `suffix`. */
  const ids = (prefix: string, suffix: string): Refusal[] => [
    ...callers.map((c) => ({ ...c, path: `${prefix}/:ap${suffix}` })),
    {
      what: 'a malformed id',
      path: `${prefix}/not-a-uuid${suffix}`,
      status: 400,
      code: 'VALIDATION_ERROR',
    },
    {
      what: 'a malformed id, without a bearer',
      path: `${prefix}/not-a-uuid${suffix}`,
      caller: 'none',
      status: 401,
      code: 'UNAUTHENTICATED',
    },
    {
      what: 'an unknown id',
      path: `${prefix}/${UNKNOWN_ID}${suffix}`,
      status: 404,
      code: 'DEVICE_NOT_FOUND',
    },
    {
      what: "another tenant's device",
      path: `${prefix}/:ap${suffix}`,
      caller: 'other',
      status: 404,
      code: 'DEVICE_NOT_FOUND',
    },
  ];

  it('POST /devices/:id/access-session: no link for a bad id, a foreign or PENDING device, or a wrong caller', async function () {
    this.timeout(20_000);
    await refuses('POST', [
      ...ids('/devices', '/access-session'),
      {
        what: 'a device not ACTIVE',
        path: '/devices/:pending/access-session',
        status: 409,
        code: 'DEVICE_NOT_ACTIVE',
      },
    ]);
  });

  for (const method of ['GET', 'POST', 'DELETE']) {
    it(`${method} /access/:deviceId/...: refused before anything reaches the device`, async function () {
      this.timeout(20_000);
      const body = method === 'POST' ? { raw: { payload: 'user=admin&pass=x', type: 'text/plain' } } : {};
      await refuses(
        method,
        [
          ...ids('/access', '/cgi-bin/status?x=1'),
          ...ids('/access', ''),
          {
            what: 'an id of the right length that is no UUID',
            path: `/access/${'-'.repeat(36)}/`,
            status: 400,
            code: 'VALIDATION_ERROR',
          },
          { what: 'no id at all', path: '/access//status', status: 400, code: 'VALIDATION_ERROR' },
          { what: 'a device not ACTIVE', path: '/access/:pending/', status: 409, code: 'DEVICE_NOT_ACTIVE' },
        ].map((r) => ({ ...r, ...body })),
      );
    });
  }

  it('the relay names the malformed id in details', async () => {
    const res = await call('GET', '/access/not-a-uuid/x', {});
    expect(res.body.details).to.deep.equal([{ field: 'deviceId', message: 'expected a device id (UUID)' }]);
  });

  it('POST /devices/:id/monitor: a bad id or body, a foreign device or a wrong caller leave the probe as it was', async function () {
    this.timeout(20_000);
    // a body that would turn the probe off if it were taken
    const off = { body: { enabled: false } };
    const bad = (what: string, body: Omit<Refusal, 'what' | 'path' | 'status' | 'code'>): Refusal => ({
      what,
      path: '/devices/:ap/monitor',
      status: 400,
      code: 'VALIDATION_ERROR',
      ...body,
    });
    await refuses('POST', [
      ...ids('/devices', '/monitor').map((r) => ({ ...r, ...off })),
      bad('enabled as a string', { body: { enabled: 'no' } }),
      bad('enabled as a number', { body: { enabled: 0 } }),
      bad('enabled null', { body: { enabled: null } }),
      bad('a field it does not take', { body: { enabled: false, interval: 30 } }),
      bad('a misspelt field', { body: { enable: false } }),
      bad('no field', { body: {} }),
      bad('no body', {}),
      bad('an array', { body: [{ enabled: false }] }),
      {
        what: 'a body that is not JSON',
        path: '/devices/:ap/monitor',
        raw: { payload: 'enabled=false', type: 'application/x-www-form-urlencoded' },
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      },
      {
        what: 'JSON that does not parse',
        path: '/devices/:ap/monitor',
        raw: { payload: '{"enabled": fal', type: 'application/json' },
        status: 400,
        code: 'INVALID_JSON',
      },
    ]);
    const details = await call('POST', '/devices/:ap/monitor', { body: { enabled: 'yes' } });
    expect(details.body.details).to.deep.equal([
      { field: 'enabled', message: 'Invalid input: expected boolean, received string' },
    ]);
  });

  it('POST /web-access: a bad serial or body, a foreign router or a wrong caller open no port', async function () {
    this.timeout(20_000);
    const otherSite = await stack.t.request('POST', '/api/v1/clients/allocations', {
      token: tokens.other,
      body: {},
    });
    expect(otherSite.status).to.equal(201);
    const bad = (what: string, body: Omit<Refusal, 'what' | 'path' | 'status' | 'code'>): Refusal => ({
      what,
      path: '/web-access',
      status: 400,
      code: 'VALIDATION_ERROR',
      ...body,
    });
    await refuses('POST', [
      ...callers.map((c) => ({ ...c, path: '/web-access', body: { router_serial: SERIAL } })),
      bad('an empty serial', { body: { router_serial: '' } }),
      bad('a blank serial', { body: { router_serial: '   ' } }),
      bad('a serial too long', { body: { router_serial: 'A'.repeat(65) } }),
      bad('a serial as a number', { body: { router_serial: 4898 } }),
      bad('a serial null', { body: { router_serial: null } }),
      bad('a field it does not take', { body: { router_serial: SERIAL, port: 8291 } }),
      bad('an array', { body: [SERIAL] }),
      {
        what: 'a body that is not JSON',
        path: '/web-access',
        raw: { payload: `router_serial=${SERIAL}`, type: 'application/x-www-form-urlencoded' },
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      },
      {
        what: 'an unknown serial',
        path: '/web-access',
        body: { router_serial: OTHER_SERIAL },
        status: 404,
        code: 'ROUTER_NOT_OWNED',
      },
      {
        what: 'another tenant asking for this router',
        path: '/web-access',
        caller: 'other',
        body: { router_serial: SERIAL },
        status: 404,
        code: 'ROUTER_NOT_OWNED',
      },
      {
        what: 'another tenant without a PRIMARY',
        path: '/web-access',
        caller: 'other',
        body: {},
        status: 404,
        code: 'ROUTER_NOT_OWNED',
      },
    ]);
  });
});

forEachDatabase('client equipment without a device domain', (database) => {
  it('POST /devices/:id/access-session answers 503 ACCESS_LINK_UNAVAILABLE and issues nothing', async () => {
    const t = await startTestController(database);
    try {
      const client = await t.account('client');
      const res = await t.request('POST', `${BASE}/devices/${UNKNOWN_ID}/access-session`, {
        token: client.token,
      });
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.include({ success: false });
      expect(res.body.error.code).to.equal('ACCESS_LINK_UNAVAILABLE');
      expect(res.body).not.to.have.property('data');
    } finally {
      await t.close();
    }
  });
});
