// What an attacker on the network or another tenant can do against the real controller process:
// replayed and forged frames, a spent enrolment code, someone else's allocation. The genuine agent
// keeps its link through all of it.
import { join } from 'node:path';
import { expect } from 'chai';
import { generateKeyPair } from '../../protocol/index.js';
import { FakeAgent, LinkRefusedError } from '../support/fake-agent.js';
import { forEachDatabase } from '../support/databases.js';
import {
  Stack,
  TEST_MS,
  type AgentProcess,
  type Allocation,
  type Client,
  type SimProcess,
} from './e2e-stack.js';

async function refusal(attempt: Promise<unknown>): Promise<string> {
  try {
    await attempt;
  } catch (err) {
    if (err instanceof LinkRefusedError) return err.code;
    throw err;
  }
  throw new Error('the controller accepted it');
}

forEachDatabase('e2e: link security against the real controller', function (database) {
  this.timeout(TEST_MS);
  let stack: Stack;
  let sim: SimProcess;
  let client: Client;
  let agent: AgentProcess;
  let allocation: Allocation;
  let code: string;

  beforeEach(async () => {
    stack = await Stack.create(database);
    [, sim] = await Promise.all([
      stack.startController(),
      stack.startSim({ serial: '48A98A070707', version: '7.19', users: 4 }),
    ]);
    client = await stack.api.client();
    ({ agent, allocation, code } = await stack.enrolAgent(client, sim));
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') console.log(stack.dump());
    await stack.shutdown();
  });

  /** The genuine agent is still connected and serving commands. */
  async function genuineAgentUnharmed(): Promise<void> {
    expect(agent.alive).to.equal(true);
    const ping = await stack.api.run(client, allocation.id, 'router.ping');
    expect(ping.state, JSON.stringify(ping.fault)).to.equal('DONE');
    expect((await stack.api.allocation(client, allocation.id)).link_state).to.equal('CONNECTED');
    expect(agent.logs('link ready'), 'the genuine link was never dropped').to.have.length(1);
  }

  it('refuses replayed frames (same session and another session) and forged ones', async () => {
    const url = stack.controller!.agentUrl;
    const { enrolment } = await stack.api.allocate(client, 'fake site');
    const fake = new FakeAgent(url);
    await fake.enrol(enrolment.code);

    // Replay within the session: same seq again.
    const frame = fake.link!.send('ping', { t: 42 });
    await fake.link!.waitFor('pong', (b) => b.t === 42);
    fake.link!.sendRaw(frame);
    expect((await fake.link!.closed).code).to.equal(1008);
    expect(fake.link!.error?.code).to.equal('REPLAYED_SEQUENCE');

    // Replay into a later session: a good signature and a fresh seq, but the old session id.
    let link = await fake.connect();
    const captured = link.send('ping', { t: 7 });
    await link.waitFor('pong', (b) => b.t === 7);
    await link.close();
    link = await fake.connect();
    link.sendRaw(captured);
    expect((await link.closed).code).to.equal(1008);
    expect(link.error?.code).to.equal('WRONG_SESSION');

    // Forged after the handshake: signed by a key that is not the agent's.
    link = await fake.connect();
    link.send('ping', { t: 9 }, { secretKey: generateKeyPair().secretKey });
    expect(await link.closed).to.deep.equal({ code: 1008, reason: 'BAD_SIGNATURE' });
    expect(link.frames.some((f) => f.type === 'pong')).to.equal(false);

    // Impersonation: a hello naming the genuine agent, signed by another key. It must not take the
    // link over (a SESSION_REPLACED for the genuine agent would be a denial of service).
    const { agent_id } = await agent.identity();
    const impostor = new FakeAgent(url);
    impostor.agentId = agent_id;
    expect(await refusal(impostor.connect())).to.equal('AGENT_UNKNOWN');

    await genuineAgentUnharmed();
  });

  it('refuses an enrolment code already used, to a fake agent and to a real one (exit 3)', async () => {
    const fake = new FakeAgent(stack.controller!.agentUrl);
    expect(await refusal(fake.enrol(code))).to.equal('ENROL_CODE_INVALID');
    expect(await refusal(fake.enrol(code.toLowerCase().replaceAll('-', '')))).to.equal('ENROL_CODE_INVALID');

    const second = stack.spawnAgent({ sim, code, stateDir: join(stack.dir, 'second-agent') });
    expect(await second.proc.exited, second.proc.output()).to.equal(3);
    expect(second.proc.output()).to.match(/ENROL_CODE_INVALID/);

    const list = await stack.api.allocations(client);
    expect(list).to.have.length(1);
    expect(list[0]).to.include({ id: allocation.id, status: 'ENROLLED' });
    await genuineAgentUnharmed();
  });

  it("hides one tenant's allocation and commands from another (404, absent from the list)", async () => {
    const command = await stack.api.run(client, allocation.id, 'router.facts');
    expect(command.state).to.equal('DONE');
    const other = await stack.api.client();
    const { allocation: theirs } = await stack.api.allocate(other, 'their site');

    const list = await stack.api.allocations(other);
    expect(list.map((a) => a.id)).to.deep.equal([theirs.id]);
    expect((await stack.api.allocations(client)).map((a) => a.id)).to.deep.equal([allocation.id]);

    const get = await stack.api.request('GET', `/api/v1/clients/allocations/${allocation.id}`, {
      token: other.token,
    });
    expect(get.status).to.equal(404);
    expect(get.body.error?.code).to.equal('ALLOCATION_NOT_FOUND');

    const post = await stack.api.request('POST', `/api/v1/clients/allocations/${allocation.id}/commands`, {
      token: other.token,
      body: { name: 'backup.save', params: {} },
    });
    expect(post.status).to.equal(404);
    expect(post.body.error?.code).to.equal('ALLOCATION_NOT_FOUND');

    for (const path of [
      `/api/v1/clients/allocations/${allocation.id}/commands/${command.id}`,
      // Their own allocation id with our command id: still not theirs.
      `/api/v1/clients/allocations/${theirs.id}/commands/${command.id}`,
    ]) {
      const res = await stack.api.request('GET', path, { token: other.token });
      expect(res.status, path).to.equal(404);
      expect(res.body.error?.code, path).to.equal('COMMAND_NOT_FOUND');
    }
    // Nothing reached the genuine agent on their behalf.
    expect(agent.logs('command started').map((l) => l.id)).to.deep.equal([command.id]);
    await genuineAgentUnharmed();
  });
});
