// The router's own management ports (`web_access` of the RADIUS topology): opened on the client's
// request for its address only, carried as raw TCP over the agent's link to the simulator's real
// web, API and SSH services, and closed once idle. Real controller, RouterOS simulators and agents.
import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { encodeSentence, SentenceDecoder, sentenceToStrings } from '../../routeros-sim/api-wire.js';
import { SSH_BANNER } from '../../routeros-sim/ip-services.js';
import { forEachDatabase } from '../../support/databases.js';
import { freePortBlock } from '../../support/free-port.js';
import { firstBytes, splitAddress as split } from '../../support/lan-http-device.js';
import { SIM_PASSWORD, startLiveStack, type LiveSite, type LiveStack } from '../../support/live-site.js';
import { eventually } from '../hub/hub-fixture.js';

const SERIAL_7 = '48A98A0F7019';
const SERIAL_6 = '48A98A0F6049';
const GRANT = '/api/v1/clients/topology/web-access';
const IDLE_MS = 3000;

function httpGet(url: string): Promise<{ status: number; body: string } | string> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('TIMEOUT')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

/** Logs in on a RouterOS API port and reads the identity: what an API client does. */
function apiIdentity(address: string): Promise<string> {
  const { host, port } = split(address);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const decoder = new SentenceDecoder();
    let step = 0;
    socket.on('data', (chunk: Buffer) => {
      for (const sentence of decoder.push(chunk).map(sentenceToStrings)) {
        if (sentence[0] === '!trap') return reject(new Error(sentence.join(' ')));
        if (step === 0 && sentence[0] === '!done') {
          step = 1;
          socket.write(encodeSentence(['/system/identity/print']));
        } else if (step === 1 && sentence[0] === '!re') {
          socket.destroy();
          resolve(sentence.find((w) => w.startsWith('=name='))!.slice(6));
        }
      }
    });
    socket.on('error', reject);
    socket.write(encodeSentence(['/login', '=name=admin', `=password=${SIM_PASSWORD}`]));
  });
}

forEachDatabase('router web access through the agent link (RouterOS 7.19 and 6.49)', (database) => {
  let stack: LiveStack;
  let a: LiveSite;
  let b: LiveSite;
  let first = 0;
  // over a real socket: the source address and the host asked for are the client's own
  const grant = async (body: unknown = {}, token?: string) => {
    const res = await fetch(`${stack.baseUrl}${GRANT}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token ?? stack.client.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer read field by field
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  before(async function () {
    this.timeout(60_000);
    // the dst-nat ports the simulators will listen on, free on both routers' addresses
    first = await freePortBlock(20, ['127.0.0.1', '127.0.0.2']);
    stack = await startLiveStack(database, {
      config: { webAccessPorts: `${first}-${first + 19}` },
      equipment: { webAccessIdleMs: IDLE_MS },
    });
    a = await stack.addSite({ serial: SERIAL_7, version: '7.19', identity: 'Site-7' });
    b = await stack.addSite({ serial: SERIAL_6, version: '6.49.10', identity: 'Site-6', host: '127.0.0.2' });
    await a.sim.services.listen();
    await b.sim.services.listen();
  });
  after(async () => {
    await stack?.close();
  });

  it('has no PRIMARY yet: the request names none, nothing opens', async function () {
    this.timeout(20_000);
    const res = await grant();
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('ROUTER_NOT_OWNED');
    const bad = await grant({ router_serial: '' });
    expect(bad.status).to.equal(400);
  });

  it("the topology shows no port until the client asks; then the PRIMARY's real services answer through them", async function () {
    this.timeout(30_000);
    const enrol = await stack.radius('POST', '/nas', { router_serial: SERIAL_7 });
    expect(enrol.status, JSON.stringify(enrol.body)).to.equal(201);
    const before = await stack.radius('GET', '/topology');
    expect(before.body.primary.web_access).to.deep.equal({
      web_ui: null,
      desktop_tool: null,
      api: null,
      ssh: null,
      reachable: true,
    });

    const res = await grant();
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const data = res.body.data;
    expect(data).to.include({ router_serial: SERIAL_7, source_address: '127.0.0.1', idle_close_seconds: 3 });
    const wa = data.web_access;
    expect(wa.reachable).to.equal(true);
    expect(wa.web_ui).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const field of ['desktop_tool', 'api', 'ssh']) expect(wa[field]).to.match(/^127\.0\.0\.1:\d+$/);
    const ports = ['web_ui', 'desktop_tool', 'api', 'ssh'].map((f) => split(wa[f]).port);
    expect(new Set(ports).size).to.equal(4);
    for (const p of ports) expect(p).to.be.within(first, first + 19);

    // the router's own web server, SSH server and API, through the agent's link
    const page = await httpGet(`${wa.web_ui}/webfig/`);
    expect(page).to.deep.include({ status: 200 });
    expect((page as { body: string }).body).to.contain('RouterOS router configuration page');
    expect(await firstBytes(wa.ssh)).to.equal(SSH_BANNER);
    expect(await apiIdentity(wa.api)).to.equal('Site-7');
    // WinBox speaks first: the router holds the connection open and silent
    expect(await firstBytes(wa.desktop_tool, '127.0.0.1', 500)).to.equal('SILENT');

    const after = await stack.radius('GET', '/topology');
    expect(after.body.primary.web_access).to.deep.equal(wa);
    // asking again keeps the same ports
    expect((await grant()).body.data.web_access).to.deep.equal(wa);
  });

  it('admits only the address that asked: another source is reset before reaching the router', async function () {
    this.timeout(20_000);
    const wa = (await grant()).body.data.web_access;
    const sessions = a.sim.connections;
    for (const field of ['ssh', 'api', 'web_ui']) {
      expect(await firstBytes(wa[field], '127.0.0.3'), field).to.be.oneOf(['ECONNRESET', 'CLOSED']);
    }
    expect(a.sim.connections).to.equal(sessions);
    expect(await firstBytes(wa.ssh)).to.equal(SSH_BANNER);
  });

  it('the web UI scheme follows the router: www-ssl with a certificate when www is off gives https', async function () {
    this.timeout(20_000);
    const services = a.sim.state.table('/ip/service');
    const www = services.findBy('name', 'www')!;
    const ssl = services.findBy('name', 'www-ssl')!;
    const ssh = services.findBy('name', 'ssh')!;
    services.update(www, { disabled: 'true' });
    services.update(ssl, { disabled: 'false', certificate: 'webfig' });
    services.update(ssh, { disabled: 'true' });
    try {
      const wa = (await grant()).body.data.web_access;
      expect(wa.web_ui).to.match(new RegExp(`^https://127\\.0\\.0\\.1:\\d+$`));
      expect(wa.ssh).to.equal(null);
      expect(wa.api).to.match(/^127\.0\.0\.1:\d+$/);
    } finally {
      services.update(www, { disabled: 'false' });
      services.update(ssl, { disabled: 'true' });
      services.update(ssh, { disabled: 'false' });
    }
    const again = (await grant()).body.data.web_access;
    expect(again.web_ui).to.match(/^http:\/\//);
    expect(again.ssh).to.match(/^127\.0\.0\.1:\d+$/);
  });

  it('opens another router of the client by serial (RouterOS 6.49); another tenant gets ROUTER_NOT_OWNED', async function () {
    this.timeout(20_000);
    const res = await grant({ router_serial: SERIAL_6 });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(await firstBytes(res.body.data.web_access.ssh)).to.equal(SSH_BANNER);
    expect(await apiIdentity(res.body.data.web_access.api)).to.equal('Site-6');
    const other = await stack.t.account('client');
    for (const body of [{ router_serial: SERIAL_7 }, {}]) {
      const foreign = await grant(body, other.token);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error.code).to.equal('ROUTER_NOT_OWNED');
    }
  });

  it('bytes keep the ports open past the idle time', async function () {
    this.timeout(30_000);
    const wa = (await grant()).body.data.web_access;
    // an SSH client that keeps talking for longer than the idle time
    const { host, port } = split(wa.ssh);
    const socket = connect({ host, port });
    await new Promise((r) => socket.once('data', r));
    const until = performance.now() + IDLE_MS * 1.5;
    while (performance.now() < until) {
      socket.write('x');
      await new Promise((r) => setTimeout(r, IDLE_MS / 6));
    }
    expect(socket.destroyed).to.equal(false);
    expect(await firstBytes(wa.ssh)).to.equal(SSH_BANNER);
    socket.destroy();
  });

  it('closes the ports once idle: connections refused, the topology back to null', async function () {
    this.timeout(30_000);
    const wa = (await grant()).body.data.web_access;
    expect(await firstBytes(wa.ssh)).to.equal(SSH_BANNER);
    // watched through the topology: a connection would be activity
    const topo = await eventually(
      () => stack.radius('GET', '/topology'),
      (r) => r.body.primary.web_access.ssh === null,
      IDLE_MS * 5,
    );
    expect(topo.body.primary.web_access).to.deep.equal({
      web_ui: null,
      desktop_tool: null,
      api: null,
      ssh: null,
      reachable: true,
    });
    for (const field of ['ssh', 'api', 'web_ui'])
      expect(await firstBytes(wa[field]), field).to.equal('ECONNREFUSED');
  });

  it('the link down: reachable false, no port opened (409 VPN_TUNNEL_NOT_CONNECTED)', async function () {
    this.timeout(30_000);
    await a.agent.stop();
    await eventually(
      () => stack.radius('GET', '/topology'),
      (r) => r.body.primary?.web_access?.reachable === false,
      15_000,
    );
    const res = await grant();
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('VPN_TUNNEL_NOT_CONNECTED');
  });
});
