// Router credentials end to end over real sockets: deposited before the agent enrols (PENDING),
// handed to that allocation's real agent once it is connected, proven on the RouterOS simulator
// and used from then on for the router's API (the old password may go; a restarted agent keeps
// the new login). Credentials the router refuses leave the agent on its working login. No secret
// in clear in the database, a body, the controller's or the agent's logs, or the agent's journal.
import { TEMP_PREFIX } from '../../agent/state/atomic-file.js';
import { expect } from 'chai';
import { sql } from 'kysely';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentLogger } from '../../agent/logger.js';
import { systemClock } from '../../controller/core/clock.js';
import {
  startRemoteAccess,
  type RemoteAccessTest,
} from '../integration/remote-access/remote-access-fixture.js';
import { eventually } from '../integration/hub/hub-fixture.js';
import { RouterSim } from '../routeros-sim/router-sim.js';
import { forEachDatabase } from '../support/databases.js';
import { startLoopbackAgent } from '../support/loopback-agent.js';

const FACTORY_PASSWORD = 'Factory-Pw-1';
const API_PASSWORD = 'Api-Secret-7Qx';
const WRONG_PASSWORD = 'Not-The-Pw-3Zk';

forEachDatabase('router credentials end to end', (database) => {
  let h: RemoteAccessTest;
  let admin: { token: string };
  const cleanups: (() => Promise<unknown>)[] = [];
  before(async () => {
    h = await startRemoteAccess(database, { clock: systemClock, listen: true });
    admin = await h.t.admin();
  });
  after(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
    await h.close();
  });

  const deposit = (body: unknown) =>
    h.t.request('POST', '/api/v1/clients/remote-access/credentials', { token: h.client.token, body });
  const status = async (id: string) =>
    (
      await h.t.request('GET', `/api/v1/clients/remote-access/credentials?allocation_id=${id}`, {
        token: h.client.token,
      })
    ).body.data;
  const facts = async (id: string) => {
    const queued = await h.t.request('POST', `/api/v1/clients/allocations/${id}/commands`, {
      token: h.client.token,
      body: { name: 'router.facts', params: {} },
    });
    expect(queued.status, JSON.stringify(queued.body)).to.equal(202);
    return eventually(
      () =>
        h.t.request('GET', `/api/v1/clients/allocations/${id}/commands/${queued.body.data.id}`, {
          token: h.client.token,
        }),
      (r) => ['DONE', 'FAILED', 'EXPIRED'].includes(r.body.data.state),
      15_000,
    ).then((r) => r.body.data);
  };

  it('7.11 mipsbe: deposited before enrolment, taken by the agent once connected, used for its login', async () => {
    const bundle = (
      await h.resolve({ routeros_version: '7.11', router_serial: 'E2EC0711', api_mode: 'native' })
    ).body.data;
    const id = bundle.allocation_id as string;
    const early = await deposit({ allocation_id: id, username: 'tn-api', password: API_PASSWORD });
    expect(early.status, JSON.stringify(early.body)).to.equal(201);
    expect(early.body.data).to.include({ stored: true, state: 'PENDING' });

    const sim = new RouterSim({
      serial: 'E2EC0711',
      version: '7.11',
      architecture: 'mipsbe',
      password: FACTORY_PASSWORD,
    });
    await sim.start();
    cleanups.push(() => sim.stop());
    sim.state.table('/user').insert({
      name: 'tn-api',
      group: 'full',
      address: '',
      password: API_PASSWORD,
      disabled: 'false',
      comment: '',
    });
    const stateDir = await mkdtemp(join(tmpdir(), 'tn-credentials-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const agentLogs: string[] = [];
    const record = (level: string) => (fields: Record<string, unknown>, message?: string) =>
      void agentLogs.push(JSON.stringify({ level, message, ...fields }));
    const logger: AgentLogger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    const start = () =>
      startLoopbackAgent({
        stateDir,
        controllerUrl: h.baseUrl,
        enrolCode: bundle.enrolment.code,
        router: { port: sim.port, password: FACTORY_PASSWORD },
        logger,
      });
    let agent = await start();
    cleanups.push(() => agent.stop());
    await eventually(
      () => h.t.request('GET', `/api/v1/clients/allocations/${id}`, { token: h.client.token }),
      (r) => r.body.data.link_state === 'CONNECTED',
      15_000,
    );

    // The job hands them over now that the agent is connected; the agent proves them first.
    const job = await h.t.request('POST', '/api/v1/admin/jobs/REMOTE_ACCESS_CREDENTIALS/run', {
      token: admin.token,
    });
    expect(job.status, JSON.stringify(job.body)).to.be.oneOf([200, 202]);
    const applied = await eventually(
      () => status(id),
      (s) => s.state === 'APPLIED',
      15_000,
    );
    expect(applied.applied_at).to.be.a('string');
    const login = join(stateDir, 'router-login.json');
    expect((await stat(login)).mode & 0o777).to.equal(0o600);

    // The factory password goes: the agent still reads the router, with the deposited login.
    const adminUser = sim.state.table('/user').findBy('name', 'admin')!;
    sim.state.table('/user').update(adminUser, { password: 'Changed-Later-5' });
    expect((await facts(id)).state).to.equal('DONE');
    // A restarted agent (flags still carry the factory password) keeps the deposited login.
    await agent.stop();
    agent = await start();
    await eventually(
      () => h.t.request('GET', `/api/v1/clients/allocations/${id}`, { token: h.client.token }),
      (r) => r.body.data.link_state === 'CONNECTED',
      15_000,
    );
    expect((await facts(id)).state).to.equal('DONE');

    // Credentials the router refuses: REFUSED, and the agent keeps the login that works.
    const wrong = await deposit({ allocation_id: id, username: 'tn-api', password: WRONG_PASSWORD });
    expect(wrong.body.data).to.include({ state: 'REFUSED', fault_code: 'ROUTER_AUTH_FAILED' });
    expect((await facts(id)).state).to.equal('DONE');

    // No secret in clear: bodies above, the database, the logs of both ends, the agent's journal.
    for (const body of [early.body, wrong.body, await status(id)])
      for (const secret of [API_PASSWORD, WRONG_PASSWORD])
        expect(JSON.stringify(body)).to.not.include(secret);
    const dump: string[] = [];
    for (const t of ['remote_access_slots', 'agent_commands'])
      dump.push(JSON.stringify((await sql`select * from ${sql.table(t)}`.execute(h.t.db.db)).rows));
    // A write in progress (`.tmp-…`, renamed into place when complete) may be gone by the time it
    // would be read: the entries are the files it becomes.
    const entries = (await readdir(join(stateDir, 'journal'))).filter((f) => !f.startsWith(TEMP_PREFIX));
    const journal = await Promise.all(entries.map((f) => readFile(join(stateDir, 'journal', f), 'utf8')));
    expect(journal.join('')).to.include('router.login.set');
    for (const secret of [API_PASSWORD, WRONG_PASSWORD]) {
      expect(dump.join('\n'), 'database').to.not.include(secret);
      expect(h.logs.join('\n'), 'controller logs').to.not.include(secret);
      expect(agentLogs.join('\n'), 'agent logs').to.not.include(secret);
      expect(journal.join('\n'), 'agent journal').to.not.include(secret);
    }
  });
});
