// Router faults are data: a router that goes silent, answers `!empty`, or is gone altogether ends
// the command FAILED (or DONE) with a fault code, never hangs it, and never takes the agent down.
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { encodeSentence, SentenceDecoder, sentenceToStrings } from '../routeros-sim/api-wire.js';
import { forEachDatabase } from '../support/databases.js';
import { ROUTER_PASSWORD, ROUTER_USER, Stack, TEST_MS, waitUntil, type Client } from './e2e-stack.js';

/** Sends one API sentence to a RouterOS port and collects the reply words up to `!done`. */
async function rawCall(socket: Socket, decoder: SentenceDecoder, words: string[]): Promise<string[][]> {
  const replies: string[][] = [];
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      for (const sentence of decoder.push(chunk)) {
        const strings = sentenceToStrings(sentence);
        replies.push(strings);
        if (strings[0] === '!done' || strings[0] === '!fatal') {
          socket.off('data', onData);
          resolve(replies);
        }
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(encodeSentence(words));
  });
}

/** What the simulator answers to a print that matches nothing, straight off the wire. */
async function printNothing(port: number, path: string): Promise<string[]> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const decoder = new SentenceDecoder();
  try {
    await rawCall(socket, decoder, ['/login', `=name=${ROUTER_USER}`, `=password=${ROUTER_PASSWORD}`]);
    const replies = await rawCall(socket, decoder, [`${path}/print`, '?name=nothing-has-this-name']);
    return replies.map((r) => r[0]!);
  } finally {
    socket.destroy();
  }
}

forEachDatabase('e2e: router faults through the real agent', function (database) {
  this.timeout(TEST_MS);
  let stack: Stack;
  let client: Client;

  beforeEach(async () => {
    stack = await Stack.create(database);
    await stack.startController();
    client = await stack.api.client();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') console.log(stack.dump());
    await stack.shutdown();
  });

  it('router drops its socket mid-command: FAILED ROUTER_TIMEOUT, agent alive, next command DONE', async () => {
    const sim = await stack.startSim({ serial: 'C4AD34040404', version: '7.19', users: 3 });
    const { agent, allocation } = await stack.enrolAgent(client, sim, { routerTimeoutMs: 2000 });
    // Let the facts report the link sends on connect finish with the router before it goes silent.
    expect((await stack.api.run(client, allocation.id, 'router.ping')).state).to.equal('DONE');
    await waitUntil(async () => (await agent.outbox()).length === 0, 5000, 'the outbox to drain');

    // Power lost after the first of the command's router calls: the router's TCP stack keeps the
    // socket open, but nothing answers any more.
    await sim.setFaults({ dropSocketSilently: true, afterCommands: 1 });
    const started = Date.now();
    const stuck = await stack.api.run(client, allocation.id, 'router.facts');
    expect(stuck.state).to.equal('FAILED');
    expect(stuck.fault?.code).to.be.oneOf(['ROUTER_TIMEOUT', 'ROUTER_UNREACHABLE']);
    expect(stuck.fault?.retryable).to.equal(true);
    // Bounded by the router timeout, far from the command's 30 s deadline.
    expect(Date.now() - started).to.be.below(20_000);
    expect(agent.alive).to.equal(true);

    await sim.clearFaults();
    const after = await stack.api.run(client, allocation.id, 'router.facts');
    expect(after.state, JSON.stringify(after.fault)).to.equal('DONE');
    expect(after.output).to.include({ serial: 'C4AD34040404' });
    expect(agent.alive).to.equal(true);
    expect((await stack.api.allocation(client, allocation.id)).link_state).to.equal('CONNECTED');
  });

  it('RouterOS 7.19 `!empty`: an export with no voucher is DONE with count 0; lost backups poll `!empty` harmlessly', async () => {
    const sim = await stack.startSim({ serial: 'C4AD34050505', version: '7.19', users: 0 });
    // The simulator really answers !empty (7.18+) to a print that matches nothing.
    expect(await printNothing(sim.port, '/ip/hotspot/user')).to.deep.equal(['!empty', '!done']);
    expect(await printNothing(sim.port, '/file')).to.deep.equal(['!empty', '!done']);

    const { agent, allocation } = await stack.enrolAgent(client, sim);
    const exported = await stack.api.run(client, allocation.id, 'hotspot.users.export');
    expect(exported.state, JSON.stringify(exported.fault)).to.equal('DONE');
    expect(exported.output).to.deep.equal({ users: [], count: 0 });

    // A backup that never appears: the agent's `/file print ?name=…` polls get `!empty` again and
    // again until the command's deadline abandons it.
    await sim.setFaults({ loseBackup: true });
    const lost = await stack.api.waitForFinal(
      client,
      await stack.api.enqueue(client, allocation.id, 'backup.save', { name: 'never-there' }, 3),
    );
    // EXPIRED only if the controller's expiry job ran in the instant between deadline and result.
    expect(lost.state).to.be.oneOf(['FAILED', 'EXPIRED']);
    if (lost.state === 'FAILED') expect(lost.fault?.code).to.equal('DEADLINE_PASSED');
    expect(agent.alive).to.equal(true);

    // The router connection is still in step: each reply lands on its own call.
    await sim.clearFaults();
    const facts = await stack.api.run(client, allocation.id, 'router.facts');
    expect(facts.output).to.include({ serial: 'C4AD34050505', routeros_version: '7.19' });
    const again = await stack.api.run(client, allocation.id, 'hotspot.users.export');
    expect(again.output).to.deep.equal({ users: [], count: 0 });
    const saved = await stack.api.run(client, allocation.id, 'backup.save', { name: 'found' });
    expect(saved.state, JSON.stringify(saved.fault)).to.equal('DONE');
    expect(agent.alive).to.equal(true);
  });

  it('router unreachable (simulator stopped): FAILED ROUTER_UNREACHABLE, agent alive, link CONNECTED', async () => {
    const sim = await stack.startSim({ serial: 'C4AD34060606', version: '6.49', users: 2 });
    const { agent, allocation } = await stack.enrolAgent(client, sim);
    expect((await stack.api.run(client, allocation.id, 'router.ping')).state).to.equal('DONE');

    expect(await sim.proc.stop('SIGTERM')).to.equal(0);
    for (const name of ['router.ping', 'router.facts']) {
      const failed = await stack.api.run(client, allocation.id, name);
      expect(failed.state, name).to.equal('FAILED');
      expect(failed.fault, name).to.include({ code: 'ROUTER_UNREACHABLE', retryable: true });
    }
    expect(agent.alive).to.equal(true);
    const view = await stack.api.allocation(client, allocation.id);
    expect(view.link_state).to.equal('CONNECTED');

    // The router comes back on its address: the agent reconnects to it on the next command.
    const back = await stack.startSim({ ...sim.spec, port: sim.port });
    const ping = await stack.api.run(client, allocation.id, 'router.ping');
    expect(ping.state, JSON.stringify(ping.fault)).to.equal('DONE');
    expect(back.port).to.equal(sim.port);
  });
});
