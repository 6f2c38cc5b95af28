// RADIUS through the agent, end to end in one process over real sockets: the controller (no
// public RADIUS port), a RouterOS 7.19 simulator as the hotspot NAS, and the real agent runtime
// with its relay. The NAS enrolment provisions the router to send RADIUS to the agent's relay; a
// ticket is then logged in, used up, and refused, all decided by the controller.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import type { RunningAgent } from '../../agent/runtime/agent-runtime.js';
import { startLoopbackAgent } from '../support/loopback-agent.js';
import { createController } from '../../controller/controller.js';
import { systemClock } from '../../controller/core/clock.js';
import { RouterSim } from '../routeros-sim/router-sim.js';
import { forEachDatabase } from '../support/databases.js';
import { TestController, testConfig } from '../support/test-controller.js';
import { eventually } from '../integration/hub/hub-fixture.js';
import { freeUdpPort } from '../support/free-port.js';

const SIM_PASSWORD = 'sim-pass';
const SERIAL = '48A98A07E1A1';
const DATA_LIMIT = 10_000_000;

forEachDatabase('RADIUS relay end to end (controller, agent relay, RouterOS 7.19 simulator)', (database) => {
  let t: TestController;
  let client: { token: string; id: string };
  let sim: RouterSim;
  let agent: RunningAgent;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeEach(async function () {
    this.timeout(60_000);
    const authPort = await freeUdpPort();
    const acctPort = await freeUdpPort();
    const db = await database.open();
    const controller = await createController({
      // The provisioning script points the router at the relay: here, the agent on loopback.
      config: testConfig({
        clock: 'system',
        radiusRelayAddress: '127.0.0.1',
        radiusRelayAuthPort: authPort,
        radiusRelayAcctPort: acctPort,
      }),
      logger: pino({ level: 'silent' }),
      clock: systemClock,
      database: db,
    });
    t = new TestController(controller, undefined as never, db);
    const { port } = await controller.listen();
    expect(controller.radiusAddresses, 'no RADIUS UDP on the controller').to.equal(null);
    client = await t.account('client');
    const admin = await t.admin();
    const granted = await t.request('POST', '/api/v1/admin/licences', {
      token: admin.token,
      body: { client_id: client.id, plan_code: 'RADIUS_ANNUAL' },
    });
    expect(granted.status).to.equal(201);

    sim = new RouterSim({ serial: SERIAL, version: '7.19', identity: 'Relay-Site', password: SIM_PASSWORD });
    await sim.start();
    cleanups.push(() => sim.stop());
    const created = await t.request('POST', '/api/v1/clients/allocations', { token: client.token, body: {} });
    const { allocation, enrolment } = created.body.data;
    const stateDir = await mkdtemp(join(tmpdir(), 'tn-relay-e2e-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    agent = await startLoopbackAgent({
      stateDir,
      controllerUrl: `http://127.0.0.1:${port}`,
      enrolCode: enrolment.code,
      router: { port: sim.port, password: SIM_PASSWORD },
      relay: { authPort, acctPort },
    });
    cleanups.push(() => agent.stop());
    expect(agent.radiusRelay, 'relay listening').to.not.equal(undefined);
    await eventually(
      async () =>
        (await t.request('GET', `/api/v1/clients/allocations/${allocation.id}`, { token: client.token })).body
          .data,
      (a) => a.link_state === 'CONNECTED' && a.router.serial === SERIAL,
      15_000,
    );
    // Server mode: the controller provisions the router through the agent.
    const nas = await t.request('POST', '/api/v1/radius/nas', {
      token: client.token,
      body: { router_serial: SERIAL },
    });
    expect(nas.status, JSON.stringify(nas.body)).to.equal(201);
    const entry = sim.state.table('/radius').list()[0]!.props;
    expect(entry).to.include({
      address: '127.0.0.1',
      'authentication-port': String(authPort),
      'accounting-port': String(acctPort),
    });
  });

  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
    await t.close();
  });

  const ticketOf = async (code: string) => {
    await t.controller.services.radius.flush();
    return (await t.controller.services.tickets.getTicket(client.id, code))!;
  };

  it('logs a ticket in through the relay, exhausts it by accounting, then refuses it', async function () {
    this.timeout(60_000);
    const { tickets, profiles } = t.controller.services;
    await profiles.setProfile(client.id, 'RELAY10MB', {
      rate_limit: '2M/2M',
      data_limit_bytes: DATA_LIMIT,
      time_limit_seconds: null,
      validity_seconds: null,
    });
    const [created] = await tickets.createTickets(client.id, { profileId: 'RELAY10MB', quantity: 1 });
    const code = created!.code;

    const wrong = await sim.hotspotLogin({
      user: code,
      password: 'wrong',
      mac: 'AA:BB:CC:00:00:02',
      ip: '10.5.50.12',
    });
    expect(wrong.ok, 'wrong password refused').to.equal(false);

    const login = await sim.hotspotLogin({
      user: code,
      password: code,
      mac: 'AA:BB:CC:00:00:01',
      ip: '10.5.50.11',
    });
    expect(login.ok, JSON.stringify(login)).to.equal(true);
    await sim.flushRadius();
    await eventually(
      () => ticketOf(code),
      (v) => v.status === 'USED' && v.used_at !== null,
      5_000,
    );

    await sim.advanceTraffic(code, { bytesIn: 4_000_000, bytesOut: 1_000_000, seconds: 60 });
    expect(await sim.sendInterimUpdates()).to.equal(1);
    await sim.flushRadius();
    expect((await ticketOf(code)).status).to.equal('USED');

    // Past the limit the router ends the session itself (Stop); log out in case it has not.
    await sim.advanceTraffic(code, { bytesIn: 8_000_000, bytesOut: 1_000_000, seconds: 60 });
    await sim.sendInterimUpdates();
    await sim.hotspotLogout(code).catch(() => undefined);
    await sim.flushRadius();
    await eventually(
      () => ticketOf(code),
      (v) => v.status === 'EXHAUSTED',
      5_000,
    );

    const again = await sim.hotspotLogin({
      user: code,
      password: code,
      mac: 'AA:BB:CC:00:00:01',
      ip: '10.5.50.11',
    });
    expect(again.ok, 'an exhausted ticket is refused').to.equal(false);
    expect(again.reason ?? '').to.not.match(/not responding/);
    expect(agent.radiusRelay!.stats.dropped.linkDown).to.equal(0);
  });
});
