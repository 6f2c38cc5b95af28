// The relay checks every request against the data as it is now, also on a connection to the device
// kept from the request before: a device no longer ACTIVE or needing revalidation, an account
// disabled and a router slot revoked are refused on the very next request, and served again once
// the data allows it. Guessed bearers count against the address as on every API route, and the
// connections the relay keeps never cost a management port its stream of the link.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { iso, systemClock } from '../../../controller/core/clock.js';
import { forEachDatabase } from '../../support/databases.js';
import { SSH_BANNER } from '../../routeros-sim/ip-services.js';
import { freePortBlock } from '../../support/free-port.js';
import { firstBytes } from '../../support/lan-http-device.js';
import { startLiveStack, type LiveSite, type LiveStack } from '../../support/live-site.js';

const SERIAL = '48A98A0E7020';
const BASE = '/api/v1/clients/topology';
/** Failed credentials an address may present in the window. */
const FAILURES = 3;

forEachDatabase('client equipment relay: every request checked on a kept connection', (database) => {
  let stack: LiveStack;
  let site: LiveSite;
  let device: Server;
  let id = '';
  const get = () => stack.t.request('GET', `${BASE}/access/${id}/page`, { token: stack.client.token });
  const setDevice = (values: { status?: 'ACTIVE' | 'PENDING'; needs_revalidation?: number }) =>
    stack.t.db.db.updateTable('equipment_devices').set(values).where('id', '=', id).execute();
  const setDisabled = (at: string | null) =>
    stack.t.db.db
      .updateTable('accounts')
      .set({ disabled_at: at })
      .where('id', '=', stack.client.id)
      .execute();

  before(async function () {
    this.timeout(60_000);
    const ports = await freePortBlock(10);
    const gates = await freePortBlock(4);
    stack = await startLiveStack(database, {
      config: {
        equipmentPorts: `${ports}-${ports + 9}`,
        webAccessPorts: `${gates}-${gates + 3}`,
        authFailureQuota: `${FAILURES}/15m`,
        trustProxy: true,
      },
    });
    site = await stack.addSite({ serial: SERIAL, version: '7.19', hello: true });
    await site.sim.services.listen();
    // the device names the connection each request came on (the router's side of it); `/slow`
    // answers late, so requests sent together each get a connection of their own
    device = createServer((req, res) => {
      if (req.url === '/slow') setTimeout(() => res.end('late'), 300);
      else if (req.url === '/missing')
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
      else res.end(`seen on ${req.socket.remotePort}`);
    });
    await new Promise<void>((r) => device.listen(0, '127.0.0.1', r));
    const port = (device.address() as AddressInfo).port;
    site.sim.lan.addDevice({ address: '192.168.50.20', mac: '24:A4:3C:10:00:20', ports: { 80: port } });
    const created = await stack.t.request('POST', `${BASE}/devices`, {
      token: stack.client.token,
      body: {
        router_serial: SERIAL,
        name: 'AP',
        device_type: 'AP',
        lan_ip: '192.168.50.20',
        service_protocol: 'http',
        service_port: 80,
        mac_address: '24:A4:3C:10:00:20',
      },
    });
    expect(created.body.data?.status, JSON.stringify(created.body)).to.equal('ACTIVE');
    id = created.body.data.id as string;
  });
  after(async () => {
    await stack?.close();
    device?.close();
  });

  it("passes the device's own 404 on as the device sent it, not as a route of ours", async () => {
    const res = await stack.t.request('GET', `${BASE}/access/${id}/missing`, { token: stack.client.token });
    expect(res.status).to.equal(404);
    expect(res.headers['content-type']).to.equal('text/plain');
    expect(res.body).to.equal('no such page');
  });

  it('counts guessed bearers against the address: 401 up to the quota, then 429 before any check', async () => {
    const from = { 'x-forwarded-for': '198.51.100.23' };
    const guess = (i: number) =>
      stack.t.request('GET', `${BASE}/access/${id}/page`, { token: `guess-${i}`, headers: from });
    for (let i = 0; i < FAILURES; i++) expect((await guess(i)).status).to.equal(401);
    const refused = await guess(FAILURES);
    expect(refused.status).to.equal(429);
    expect(refused.headers['retry-after']).to.match(/^\d+$/);
    // even the right bearer from that address now waits; another address is served
    const right = await stack.t.request('GET', `${BASE}/access/${id}/page`, {
      token: stack.client.token,
      headers: from,
    });
    expect(right.status).to.equal(429);
    expect((await get()).status).to.equal(200);
  });

  it("opens a management port while the relay keeps every stream of the router's link idle", async function () {
    this.timeout(30_000);
    // 16 requests at once: 16 connections to the device, kept idle once answered
    const slow = await Promise.all(
      Array.from({ length: 16 }, () =>
        stack.t.request('GET', `${BASE}/access/${id}/slow`, { token: stack.client.token }),
      ),
    );
    expect(slow.map((r) => r.status)).to.deep.equal(Array(16).fill(200));
    const res = await fetch(`${stack.baseUrl}${BASE}/web-access`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.client.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ router_serial: SERIAL }),
    });
    const body = (await res.json()) as { data: { web_access: { ssh: string } } };
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(await firstBytes(body.data.web_access.ssh)).to.equal(SSH_BANNER);
    // and the relay opens what it needs again afterwards
    await sleep(50);
    expect((await get()).status).to.equal(200);
  });

  it('refuses at once what the data no longer allows, then serves again on the kept connection', async function () {
    this.timeout(30_000);
    const first = await get();
    expect(first.status).to.equal(200);
    const connection = String(first.body);

    await setDevice({ status: 'PENDING' });
    const pending = await get();
    expect(pending.status).to.equal(409);
    expect(pending.body.error.code).to.equal('DEVICE_NOT_ACTIVE');
    await setDevice({ status: 'ACTIVE', needs_revalidation: 1 });
    const revalidate = await get();
    expect(revalidate.status).to.equal(409);
    expect(revalidate.body.error.code).to.equal('DEVICE_NOT_ACTIVE');
    await setDevice({ needs_revalidation: 0 });

    await setDisabled(iso(systemClock.now()));
    const disabled = await get();
    expect(disabled.status).to.equal(401);
    await setDisabled(null);

    // served again, on the connection kept all along (the refusals never reached the device)
    const again = await get();
    expect(again.status).to.equal(200);
    expect(String(again.body)).to.equal(connection);

    const revoked = await stack.t.request('POST', `/api/v1/clients/allocations/${site.allocationId}/revoke`, {
      token: stack.client.token,
    });
    expect(revoked.status).to.equal(200);
    const gone = await get();
    expect(gone.status).to.equal(409);
    expect(gone.body.error.code).to.equal('DEVICE_NOT_ACTIVE');
    expect(gone.body.details).to.deep.equal({ reason: 'ROUTER_CHANGED_OWNER' });
  });
});
