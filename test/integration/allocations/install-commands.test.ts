// The install commands run on a router (the simulator's script runner, as pasted in the terminal):
// the router draws the agent's password itself and hands it to the container, so the allocation
// answer, the database and the controller's logs never hold it; the agent started the way the
// container starts it (from those envs) enrols. The desktop-tool route creates no router account.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { RouterOSAPI } from 'node-routeros';
import { pino } from 'pino';
import { SILENT_LOGGER } from '../../../agent/logger.js';
import { startAgent } from '../../../agent/runtime/agent-runtime.js';
import { createController } from '../../../controller/controller.js';
import { systemClock } from '../../../controller/core/clock.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import { forEachDatabase } from '../../support/databases.js';
import { startLoopbackAgent } from '../../support/loopback-agent.js';
import { TestController, testConfig } from '../../support/test-controller.js';
import { eventually } from '../hub/hub-fixture.js';

const ADMIN_PASSWORD = 'sim-admin-pass';

forEachDatabase('install commands (the agent password is made on the router)', (database) => {
  let t: TestController;
  let client: { token: string; id: string };
  const logLines: string[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeEach(async () => {
    logLines.length = 0;
    const db = await database.open();
    // every line the controller logs, down to debug, to look for the password in
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    const controller = await createController({
      config: testConfig({ clock: 'system' }),
      logger: pino({ level: 'debug' }, sink),
      clock: systemClock,
      database: db,
    });
    t = new TestController(controller, undefined as never, db);
    await controller.listen();
    client = await t.account('client');
  });

  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
    await t.close();
  });

  async function startRouter(serial: string): Promise<RouterSim> {
    const sim = new RouterSim({ serial, version: '7.19', password: ADMIN_PASSWORD });
    await sim.start();
    cleanups.push(() => sim.stop());
    return sim;
  }

  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'tn-install-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  /** Every row of every table, as one text. */
  async function databaseText(): Promise<string> {
    const tables = await t.db.db.introspection.getTables();
    const dump: unknown[] = [];
    for (const table of tables) {
      dump.push(
        await t.db.db
          .selectFrom(table.name as never)
          .selectAll()
          .execute(),
      );
    }
    return JSON.stringify(dump);
  }

  const allocationOf = async (id: string) =>
    (await t.request('GET', `/api/v1/clients/allocations/${id}`, { token: client.token })).body.data;

  it('creates the agent user with a password only the router and the container env know', async () => {
    const created = await t.request('POST', '/api/v1/clients/allocations', {
      token: client.token,
      body: { label: 'Boutique' },
    });
    expect(created.status).to.equal(201);
    const { allocation, enrolment } = created.body.data;
    const commands: string[] = enrolment.install.routeros_container;
    const text = commands.join('\n');
    // the password is drawn on the router; the commands carry none
    expect(text).to.include(':rndstr length=32').and.include('password=$pw').and.include('value=$pw');
    expect(text).to.not.match(/password="/);

    const sim = await startRouter('C0FFEE123456');
    const users = sim.state.table('/user');
    const run = await sim.runScript(text);
    expect(run, run.error).to.deep.include({ ok: true });

    const envs = Object.fromEntries(
      sim.state
        .table('/container/envs')
        .list()
        .filter((e) => e.props.name === 'ticketnet')
        .map((e) => [e.props.key, e.props.value ?? '']),
    );
    const password = envs.TICKETNET_ROUTER_PASSWORD ?? '';
    expect(password).to.match(/^[A-Za-z0-9]{32}$/);
    expect(envs).to.include({
      TICKETNET_ENROL_CODE: enrolment.code,
      TICKETNET_CONTROLLER_URL: enrolment.controller_url,
      TICKETNET_ROUTER_HOST: '172.31.255.1',
      TICKETNET_ROUTER_USER: 'ticketnet-agent',
    });
    expect(users.findBy('name', 'ticketnet-agent')?.props).to.include({
      group: 'ticketnet-agent',
      address: '172.31.255.2/32',
      password,
    });
    expect(sim.state.table('/container').list()[0]?.props).to.include({
      envlist: 'ticketnet',
      interface: 'veth-ticketnet',
      status: 'running',
    });
    // the router takes that password for that user over the API
    const api = new RouterOSAPI({
      host: '127.0.0.1',
      port: sim.port,
      user: 'ticketnet-agent',
      password,
      timeout: 3,
    });
    await api.connect();
    await api.close();

    // the agent starts as the container starts it: everything from the envs list (the veth
    // address is the router's side of the container link; in a test the router is on loopback)
    const agent = await startAgent({
      stateDir: await tempDir(),
      logger: SILENT_LOGGER,
      controllerUrl: envs.TICKETNET_CONTROLLER_URL ?? '',
      enrolCode: envs.TICKETNET_ENROL_CODE ?? '',
      router: {
        host: '127.0.0.1',
        port: sim.port,
        user: envs.TICKETNET_ROUTER_USER ?? '',
        password,
        ftpPort: 21,
        timeoutMs: 5000,
        connectTimeoutMs: 5000,
      },
      link: { backoff: { baseMs: 20, capMs: 200 } },
      reports: { telemetryIntervalMs: 3_600_000, factsIntervalMs: 3_600_000, factsMinSpacingMs: 0 },
    });
    cleanups.push(() => agent.stop());
    await eventually(
      () => allocationOf(allocation.id),
      (a) => a.link_state === 'CONNECTED' && a.router.serial === 'C0FFEE123456',
      15_000,
    );
    expect(users.findBy('name', 'ticketnet-agent')?.props['last-logged-in']).to.be.a('string');

    // neither the answer, the database nor a log line holds it
    expect(JSON.stringify(created.body)).to.not.include(password);
    expect(JSON.stringify(await allocationOf(allocation.id))).to.not.include(password);
    expect(await databaseText()).to.not.include(password);
    expect(logLines.length).to.be.greaterThan(0);
    expect(logLines.join('')).to.not.include(password);
  });

  it('gives the LAN-box install no router account, and the desktop-tool route creates none', async () => {
    const admin = await t.admin();
    const granted = await t.request('POST', '/api/v1/admin/licences', {
      token: admin.token,
      body: { client_id: client.id, plan_code: 'RADIUS_ANNUAL' },
    });
    expect(granted.status).to.equal(201);
    const created = await t.request('POST', '/api/v1/clients/allocations', { token: client.token, body: {} });
    const { allocation, enrolment } = created.body.data;
    // the agent on a LAN box is given the router's credentials by its operator: no /user in its commands
    expect(enrolment.install.linux.join('\n')).to.not.match(/\/user|password/);

    const sim = await startRouter('DE5C70011AB2');
    const agent = await startLoopbackAgent({
      stateDir: await tempDir(),
      controllerUrl: enrolment.controller_url,
      enrolCode: enrolment.code,
      router: { port: sim.port, password: ADMIN_PASSWORD },
    });
    cleanups.push(() => agent.stop());
    await eventually(
      () => allocationOf(allocation.id),
      (a) => a.link_state === 'CONNECTED',
      15_000,
    );

    const radius = (method: string, path: string, body?: unknown) =>
      t.request(method, `/v1/radius${path}`, { token: client.token, ...(body ? { body } : {}) });
    expect((await radius('POST', '/resellers', { username: 'awa', password: 'pin-1234' })).status).to.equal(
      201,
    );
    const userChanges: string[] = [];
    sim.state.table('/user').on('change', (kind: string) => userChanges.push(kind));
    const commandsBefore = await t.db.db.selectFrom('agent_commands').select('id').execute();

    const res = await radius('PUT', '/resellers/awa/desktop_tool', {
      allow_desktop_login: true,
      router_group: 'full',
      desktop_password: 'pc-pass-1',
    });
    expect(res.status).to.equal(200);
    expect(res.body.desktop_tool).to.include({ allow_desktop_login: true, desktop_password_set: true });
    // give a command that would have been sent the time to reach the router
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(userChanges).to.deep.equal([]);
    expect(
      sim.state
        .table('/user')
        .list()
        .map((u) => u.props.name),
    ).to.deep.equal(['admin']);
    expect(await t.db.db.selectFrom('agent_commands').select('id').execute()).to.deep.equal(commandsBefore);
    expect(JSON.stringify(res.body)).to.not.include('pc-pass-1');
  });
});
