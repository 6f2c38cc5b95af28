// The durable command queue across process deaths: an agent killed outright, a controller restarted
// on the same database. A command queued while the other side is away waits, then runs once.
import { expect } from 'chai';
import { forEachDatabase } from '../support/databases.js';
import { SETTLE_MS, Stack, TEST_MS, sleep, waitUntil, type Client, type SimProcess } from './e2e-stack.js';

forEachDatabase('e2e: link resilience (agent killed, controller restarted)', function (database) {
  this.timeout(TEST_MS);
  let stack: Stack;
  let sim: SimProcess;
  let client: Client;

  beforeEach(async () => {
    stack = await Stack.create(database);
    [, sim] = await Promise.all([
      stack.startController(),
      stack.startSim({ serial: 'DC2C6E020202', version: '7.19', users: 5 }),
    ]);
    client = await stack.api.client();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') console.log(stack.dump());
    await stack.shutdown();
  });

  it('agent SIGKILLed: DISCONNECTED, a new command stays QUEUED, then runs exactly once after a restart', async () => {
    const { agent, allocation } = await stack.enrolAgent(client, sim);
    agent.proc.child.kill('SIGKILL');
    await agent.proc.exited;
    await stack.api.waitForAllocation(
      client,
      allocation.id,
      (a) => a.link_state === 'DISCONNECTED',
      'DISCONNECTED',
    );

    const queued = await stack.api.enqueue(client, allocation.id, 'backup.save', { name: 'after-kill' });
    expect(queued.state).to.equal('QUEUED');
    // Nobody to carry it: it must still be waiting, never sent, a while later. The subject is an
    // absence, watched over five scheduler ticks (TICKETNET_SCHEDULER_TICK_MS is 200).
    await sleep(1000);
    const waiting = await stack.api.command(client, allocation.id, queued.id);
    expect(waiting).to.include({ state: 'QUEUED', attempts: 0, sent_at: null });

    // Same state directory, no code: the agent says hello with its saved identity.
    const restarted = await stack.startAgent({ sim, stateDir: agent.stateDir });
    const done = await stack.api.waitForFinal(client, queued);
    expect(done.state, JSON.stringify(done.fault)).to.equal('DONE');
    expect(done.attempts).to.equal(1);
    expect((done.output as { file_name: string }).file_name).to.equal('after-kill.backup');
    expect(restarted.starts(queued.id), 'executions in the agent log').to.equal(1);
    expect(await restarted.journal(queued.id)).to.include({ state: 'DONE' });
    const files = (await sim.summary()).files.filter((f) => f.name === 'after-kill.backup');
    expect(files, 'backup files on the router').to.have.length(1);
    expect((await stack.api.allocation(client, allocation.id)).link_state).to.equal('CONNECTED');
  });

  it('controller restarted on the same database: a command queued through the new process is delivered once', async () => {
    const { agent, allocation } = await stack.enrolAgent(client, sim);
    const controller = stack.controller!;
    expect(await controller.proc.stop('SIGTERM')).to.equal(0);
    expect(controller.proc.output()).to.match(/controller stopped/);

    // The agent finds the controller gone and backs off between refused connections.
    await waitUntil(
      () => agent.logs('link ready').length === 1 && agent.proc.output().includes('ECONNREFUSED'),
      SETTLE_MS,
      'the agent to fail a reconnection',
    );
    // Freeze the agent while the new controller starts and the command is queued, so that the
    // command is certainly stored before the agent reconnects (the backoff alone could win the race).
    agent.proc.child.kill('SIGSTOP');
    try {
      await stack.startController(controller.port);
      const before = await stack.api.allocation(client, allocation.id);
      expect(before.link_state).to.equal('DISCONNECTED');
      const queued = await stack.api.enqueue(client, allocation.id, 'router.facts');
      expect(queued.state).to.equal('QUEUED');
      expect((await stack.api.command(client, allocation.id, queued.id)).state).to.equal('QUEUED');
      agent.proc.child.kill('SIGCONT');

      const done = await stack.api.waitForFinal(client, queued);
      expect(done.state, JSON.stringify(done.fault)).to.equal('DONE');
      expect(done.attempts).to.equal(1);
      expect(done.output).to.include({ serial: 'DC2C6E020202', routeros_version: '7.19' });
      expect(agent.starts(queued.id)).to.equal(1);
      expect(agent.logs('link ready')).to.have.length(2);
      expect(agent.alive).to.equal(true);
      expect((await stack.api.allocation(client, allocation.id)).link_state).to.equal('CONNECTED');
    } finally {
      agent.proc.child.kill('SIGCONT');
    }
  });

  it('controller restarted while a command runs: the result made offline is delivered, the command run once', async () => {
    const { agent, allocation } = await stack.enrolAgent(client, sim);
    // A slow router keeps the command running while the controller goes away.
    await sim.setFaults({ delayMs: 1500 });
    const queued = await stack.api.enqueue(client, allocation.id, 'router.facts');
    await waitUntil(
      async () => (await stack.api.command(client, allocation.id, queued.id)).state === 'ACKED',
      SETTLE_MS,
      'the agent to acknowledge the command',
    );
    const controller = stack.controller!;
    expect(await controller.proc.stop('SIGTERM')).to.equal(0);
    await sim.clearFaults();
    // Finished and journalled with nobody to send the result to.
    await waitUntil(
      async () => (await agent.journal(queued.id)).state === 'DONE',
      SETTLE_MS,
      'the command to finish offline',
    );

    await stack.startController(controller.port);
    const done = await stack.api.waitForFinal(client, queued);
    expect(done.state, JSON.stringify(done.fault)).to.equal('DONE');
    expect(done.output).to.include({ serial: 'DC2C6E020202' });
    // The new link may carry the command again before the result lands; the journal answers it.
    expect(done.attempts).to.be.within(1, 2);
    expect(agent.starts(queued.id), 'executions in the agent log').to.equal(1);
    expect(agent.logs('link ready')).to.have.length(2);
  });
});
