// Secrets a command carries (the provisioning script holds the NAS secret) are kept only while it is
// open: once final, neither `agent_commands` nor the agent's journal holds them, finished commands
// are pruned after the retention, and the temporary script on the router is always removed (a
// failed removal is logged and retried). With the real pieces (controller on a port, agent runtime,
// RouterOS 7.19 simulator), then with a fake agent and a manual clock for the queue's own rules.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { AgentLogger } from '../../../agent/logger.js';
import { COMMAND_RETENTION_MS } from '../../../controller/hub/jobs.js';
import { REDACTED } from '../../../protocol/index.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { forEachDatabase } from '../../support/databases.js';
import { startLiveStack, type LiveStack } from '../../support/live-site.js';
import { eventually, startHub, type HubTest } from './hub-fixture.js';

const SERIAL = '48A98A071901';
const SCRIPT_NAME = 'ticketnet-radius';
/** The agent's message for the simulator's trap on the removal. */
const BUSY = '/system/script/remove: failure: busy';

interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message: string | undefined;
}

function recordingLogger(lines: LogLine[]): AgentLogger {
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message?: string): void =>
      void lines.push({ level, fields, message });
  return { debug: () => undefined, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Every file under `dir`, as text (a temporary file the agent renamed meanwhile is left out). */
async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const names = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = names.filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
  const read = await Promise.all(
    files.map(async (path) => {
      try {
        return [{ path, text: await readFile(path, 'utf8') }];
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
    }),
  );
  return read.flat();
}

forEachDatabase('secret-bearing commands end to end (controller, agent runtime, simulator)', (database) => {
  let stack: LiveStack;
  let sim: RouterSim;
  let stateDir: string;
  let agentLog: LogLine[];

  beforeEach(async function () {
    this.timeout(30_000);
    stack = await startLiveStack(database);
    agentLog = [];
    ({ sim, stateDir } = await stack.addSite({
      serial: SERIAL,
      identity: 'Cyber-Medina',
      agentLogger: recordingLogger(agentLog),
    }));
  });
  afterEach(async () => stack.close());

  const radius = (method: string, path: string, body?: unknown) => stack.radius(method, path, body);
  const enrol = () => radius('POST', '/nas', { router_serial: SERIAL });
  const temporaryScripts = () =>
    sim.state
      .table('/system/script')
      .list()
      .filter((s) => s.props.name === SCRIPT_NAME);
  const removalLog = () =>
    agentLog
      .filter((l) => l.fields.script === SCRIPT_NAME)
      .map((l) => ({ level: l.level, message: l.message, attempt: l.fields.attempt, err: l.fields.err }));

  it('keeps the NAS secret neither in agent_commands nor in the agent state once the enrolment is done', async function () {
    this.timeout(60_000);
    const res = await enrol();
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const provisioning = await radius('GET', `/nas/${res.body.nas.id}/provisioning`);
    const secret = /secret="([0-9a-f]+)"/.exec(provisioning.body.script)![1]!;
    // The router got it: the script did run.
    expect(sim.state.table('/radius').list()[0]!.props.secret).to.equal(secret);

    const rows = await stack.t.db.db.selectFrom('agent_commands').selectAll().execute();
    expect(rows.map((r) => r.name)).to.include('router.script.apply');
    for (const row of rows) expect(JSON.stringify(row), row.name).not.to.include(secret);
    const applied = rows.find((r) => r.name === 'router.script.apply')!;
    expect(applied.state).to.equal('DONE');
    expect(JSON.parse(applied.params)).to.deep.equal({ name: SCRIPT_NAME, source: REDACTED });

    // The client's own view of the command says the same.
    const view = await stack.t.request(
      'GET',
      `/api/v1/clients/allocations/${applied.allocation_id}/commands/${applied.id}`,
      { token: stack.client.token },
    );
    expect(view.body.data.params).to.deep.equal({ name: SCRIPT_NAME, source: REDACTED });

    const files = await filesUnder(stateDir);
    const journalled = files.filter((f) => f.path.endsWith(`${applied.id}.json`));
    expect(journalled, 'the journal entry of the script command').to.have.length(1);
    expect(JSON.parse(journalled[0]!.text).command.params).to.deep.equal({
      name: SCRIPT_NAME,
      source: REDACTED,
    });
    for (const file of files) expect(file.text, file.path).not.to.include(secret);
    expect(temporaryScripts()).to.deep.equal([]);
    expect(removalLog()).to.deep.equal([]);
  });

  it('retries a failed removal of the temporary script, logging the failure, and enrols', async function () {
    this.timeout(60_000);
    sim.faults.set({ failCommand: { path: '/system/script/remove', message: 'failure: busy', times: 1 } });
    const res = await enrol();
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(temporaryScripts()).to.deep.equal([]);
    expect(removalLog()).to.deep.equal([
      {
        level: 'warn',
        message: 'temporary script not removed; retrying',
        attempt: 1,
        err: BUSY,
      },
    ]);
  });

  it('fails the enrolment when the temporary script cannot be removed, logs each attempt, and the next one removes it', async function () {
    this.timeout(60_000);
    sim.faults.set({ failCommand: { path: '/system/script/remove', message: 'failure: busy' } });
    const res = await enrol();
    expect(res.status, JSON.stringify(res.body)).to.equal(502);
    expect(res.body.code).to.equal('RADIUS_PROVISION_ERROR');
    expect(res.body.details).to.deep.include({ step: 'APPLY', rolled_back: true });
    expect(res.body.details.fault).to.deep.equal({
      code: 'ROUTER_TRAP',
      message: `the script ran but its temporary entry ${SCRIPT_NAME} could not be removed: ${BUSY}`,
    });
    expect(removalLog()).to.deep.equal([
      { level: 'warn', message: 'temporary script not removed; retrying', attempt: 1, err: BUSY },
      { level: 'warn', message: 'temporary script not removed; retrying', attempt: 2, err: BUSY },
      { level: 'error', message: 'temporary script left on the router', attempt: 3, err: BUSY },
    ]);
    expect(temporaryScripts()).to.have.length(1);

    sim.faults.clear();
    const again = await enrol();
    expect(again.status, JSON.stringify(again.body)).to.equal(201);
    expect(temporaryScripts()).to.deep.equal([]);
  });
});

forEachDatabase('finished commands: secret params redacted, old ones pruned', (database) => {
  let h: HubTest;
  beforeEach(async () => (h = await startHub(database)));
  afterEach(async () => h.t.close());

  const SCRIPT = { name: SCRIPT_NAME, source: '/radius add secret="0123456789abcdef"' };
  const USERS = [{ name: 'v1', password: 'pw-4921', profile: '1h', disabled: false }];
  const row = (id: string) =>
    h.t.db.db.selectFrom('agent_commands').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const runJob = async (name: string) => {
    const admin = await h.t.admin();
    const res = await h.t.request('POST', `/api/v1/admin/jobs/${name}/run`, { token: admin.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.status).to.equal('OK');
    return res.body.data.result;
  };

  it('redacts the secret params of a command once it ends DONE, FAILED or EXPIRED, and keeps the others', async () => {
    const { commands } = h.t.controller.services;
    const agent = await h.enrolledAgent();
    const allocationId = agent.allocationId!;
    agent.execute = (command) =>
      command.name === 'router.script.apply'
        ? { status: 'FAILED', fault: { code: 'ROUTER_TRAP', message: 'failure: busy', retryable: false } }
        : command.name === 'hotspot.users.restore'
          ? { status: 'DONE', output: { added: 1, updated: 0 } }
          : { status: 'DONE', output: { rtt_ms: 2 } };

    const failed = await commands.enqueue(h.client.id, allocationId, 'router.script.apply', SCRIPT);
    const restored = await commands.enqueue(h.client.id, allocationId, 'hotspot.users.restore', {
      users: USERS,
    });
    const pinged = await commands.enqueue(h.client.id, allocationId, 'router.ping', {});
    // Open, its row keeps what the agent must be sent (checked below); no view of it shows the secret.
    expect(failed.params).to.deep.equal({ name: SCRIPT_NAME, source: REDACTED });
    const ends = await Promise.all(
      [failed, restored, pinged].map((c) => commands.waitForResult(h.client.id, c.id, 5000)),
    );
    expect(ends.map((c) => [c.state, c.params])).to.deep.equal([
      ['FAILED', { name: SCRIPT_NAME, source: REDACTED }],
      ['DONE', { users: REDACTED }],
      ['DONE', {}],
    ]);
    expect(JSON.parse((await row(failed.id)).params)).to.deep.equal({ name: SCRIPT_NAME, source: REDACTED });
    expect(JSON.parse((await row(restored.id)).params)).to.deep.equal({ users: REDACTED });
    expect((await row(restored.id)).output).to.equal(JSON.stringify({ added: 1, updated: 0 }));

    // Expired while its agent was away: redacted by the expiry job's own write.
    await agent.link!.close();
    await eventually(
      () => h.allocation(allocationId),
      (a) => a.link_state === 'DISCONNECTED',
    );
    const late = await commands.enqueue(h.client.id, allocationId, 'router.script.apply', SCRIPT, {
      timeoutMs: 60_000,
    });
    expect(JSON.parse((await row(late.id)).params)).to.deep.equal(SCRIPT);
    h.t.clock.advance(60_000);
    expect(await runJob('AGENT_COMMAND_EXPIRY')).to.deep.equal({ expired: 1 });
    const expired = await row(late.id);
    expect(expired.state).to.equal('EXPIRED');
    expect(JSON.parse(expired.params)).to.deep.equal({ name: SCRIPT_NAME, source: REDACTED });
  });

  it('prunes final commands past the retention through AGENT_COMMAND_PRUNE, and keeps open and recent ones', async () => {
    const { commands } = h.t.controller.services;
    const agent = await h.enrolledAgent();
    const allocationId = agent.allocationId!;
    const run = async () => {
      const queued = await commands.enqueue(h.client.id, allocationId, 'router.ping', {});
      return commands.waitForResult(h.client.id, queued.id, 5000);
    };
    const old = await run();
    expect(old.state).to.equal('DONE');
    // Open, its deadline long past and never expired: still owed an outcome, never pruned.
    agent.withholdResults = true;
    const open = await commands.enqueue(h.client.id, allocationId, 'router.ping', {});
    await eventually(
      () => row(open.id),
      (r) => r.state === 'ACKED',
    );
    agent.withholdResults = false;

    h.t.clock.advance(COMMAND_RETENTION_MS - 60_000);
    const recent = await run();
    expect(await runJob('AGENT_COMMAND_PRUNE')).to.deep.equal({ pruned: 0 });
    h.t.clock.advance(2 * 60_000);
    expect(await runJob('AGENT_COMMAND_PRUNE')).to.deep.equal({ pruned: 1 });

    const left = await h.t.db.db
      .selectFrom('agent_commands')
      .select(['id', 'state'])
      .orderBy('created_at')
      .execute();
    expect(left).to.deep.equal([
      { id: open.id, state: 'ACKED' },
      { id: recent.id, state: 'DONE' },
    ]);
    const gone = await h.t.request('GET', `/api/v1/clients/allocations/${allocationId}/commands/${old.id}`, {
      token: h.client.token,
    });
    expect(gone.status).to.equal(404);
    expect(gone.body.error.code).to.equal('COMMAND_NOT_FOUND');
  });
});
