// RADIUS relay per router: two sites, each a RouterOS simulator with the real agent runtime, one
// agent as in a RouterOS container (relay on every address: the router sees it at the address the
// agent reaches the router from) and one as a LAN box whose relay listens on its own LAN address.
// Each agent reports its relay; each enrolment writes the router's /radius entry with its own
// agent's address and ports, and a hotspot login on each router goes through its own relay.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { SILENT_LOGGER } from '../../../agent/logger.js';
import { startAgent, type RunningAgent } from '../../../agent/runtime/agent-runtime.js';
import { createController } from '../../../controller/controller.js';
import { systemClock } from '../../../controller/core/clock.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import { forEachDatabase } from '../../support/databases.js';
import { TestController, testConfig } from '../../support/test-controller.js';
import { eventually } from '../hub/hub-fixture.js';

const SIM_PASSWORD = 'sim-pass';

forEachDatabase('RADIUS relay per router (container agent, LAN-box agent)', (database) => {
  let t: TestController;
  let baseUrl: string;
  let client: { token: string; id: string };
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeEach(async () => {
    const db = await database.open();
    const controller = await createController({
      // The controller-wide address is only the fallback: no router here may end up with it.
      config: testConfig({ clock: 'system', radiusRelayAddress: '192.0.2.1' }),
      logger: pino({ level: 'silent' }),
      clock: systemClock,
      database: db,
    });
    t = new TestController(controller, undefined as never, db);
    const { port } = await controller.listen();
    baseUrl = `http://127.0.0.1:${port}`;
    client = await t.account('client');
    await controller.services.licences.grant(client.id, 'RADIUS_ANNUAL', null);
  });

  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
    await t.controller.services.takeover.settled();
    await t.close();
  });

  /** A simulated router and a real agent whose relay listens on `relayHost`, enrolled and reporting. */
  async function site(serial: string, relayHost: string): Promise<{ sim: RouterSim; agent: RunningAgent }> {
    const sim = new RouterSim({
      serial,
      version: '7.19',
      identity: `Site-${serial}`,
      password: SIM_PASSWORD,
    });
    await sim.start();
    cleanups.push(() => sim.stop());
    const created = await t.request('POST', '/api/v1/clients/allocations', { token: client.token, body: {} });
    const { allocation, enrolment } = created.body.data;
    const stateDir = await mkdtemp(join(tmpdir(), 'tn-relay-site-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const agent = await startAgent({
      stateDir,
      logger: SILENT_LOGGER,
      controllerUrl: baseUrl,
      enrolCode: enrolment.code,
      router: {
        host: '127.0.0.1',
        port: sim.port,
        user: 'admin',
        password: SIM_PASSWORD,
        ftpPort: 21,
        timeoutMs: 5000,
        connectTimeoutMs: 5000,
      },
      link: { backoff: { baseMs: 20, capMs: 200 } },
      radiusRelay: { host: relayHost, authPort: 0, acctPort: 0, allow: [] },
      reports: { telemetryIntervalMs: 3_600_000, factsIntervalMs: 3_600_000, factsMinSpacingMs: 0 },
    });
    cleanups.push(() => agent.stop());
    await eventually(
      async () =>
        (await t.request('GET', `/api/v1/clients/allocations/${allocation.id}`, { token: client.token })).body
          .data,
      (a) => a.link_state === 'CONNECTED' && a.router.serial === serial && a.radius_relay !== null,
      15_000,
    );
    return { sim, agent };
  }

  const radiusEntry = (sim: RouterSim) => sim.state.table('/radius').list()[0]?.props;

  it("writes each router's /radius entry with its own agent's relay address and ports", async function () {
    this.timeout(60_000);
    const container = await site('48A98A07C001', '0.0.0.0');
    const lanBox = await site('48A98A07C002', '127.0.0.2');
    const { profiles, tickets } = t.controller.services;
    await profiles.setProfile(client.id, '1H', { time_limit_seconds: 3600 });

    for (const [serial, { sim, agent }, address] of [
      ['48A98A07C001', container, '127.0.0.1'],
      ['48A98A07C002', lanBox, '127.0.0.2'],
    ] as const) {
      const res = await t.request('POST', '/api/v1/radius/nas', {
        token: client.token,
        body: { router_serial: serial },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const { auth, acct } = agent.radiusRelay!.addresses;
      expect(radiusEntry(sim), serial).to.include({
        address,
        'authentication-port': String(auth!.port),
        'accounting-port': String(acct!.port),
      });
      const verify = await t.request('POST', `/api/v1/radius/nas/${res.body.nas.id}/verify`, {
        token: client.token,
      });
      expect(verify.body.verified, JSON.stringify(verify.body)).to.equal(true);

      // A login on this router is decided by the controller through this router's own relay.
      const [ticket] = await tickets.createTickets(client.id, { profileId: '1H', quantity: 1 });
      const relayed = agent.radiusRelay!.stats.relayed;
      const login = await sim.hotspotLogin({ user: ticket!.code, password: ticket!.code, ip: '10.5.50.11' });
      expect(login.ok, JSON.stringify(login)).to.equal(true);
      expect(agent.radiusRelay!.stats.relayed).to.be.greaterThan(relayed);
    }
    // Neither router was pointed at the controller-wide fallback.
    expect(radiusEntry(container.sim)!.address).to.not.equal(radiusEntry(lanBox.sim)!.address);
  });
});
