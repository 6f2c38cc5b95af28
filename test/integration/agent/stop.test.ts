import { readdir } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { expect } from 'chai';
import { CommandJournal } from '../../../agent/state/command-journal.js';
import { StateDir } from '../../../agent/state/state-dir.js';
import { FakeHub } from '../../support/fake-hub.js';
import { afterTest, cleanUp, startTestAgent, waitUntil } from './agent-harness.js';

/** A "router" that takes TCP connections and never says a word (a hung API service, a firewall). */
async function silentRouter(): Promise<{ port: number; open: () => number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // Read (and drop) what comes, so the agent's close is seen.
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterTest(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as { port: number }).port, open: () => sockets.size };
}

// Timeouts far beyond the test's: only stopping, not a router timeout, can end the waits below.
const NEVER = 600_000;

describe('agent stop while nothing answers', function () {
  this.timeout(30_000);
  afterEach(cleanUp);

  it('stops with the controller gone and the router silent; the running command is journalled as interrupted', async () => {
    const hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    const router = await silentRouter();
    const agent = await startTestAgent({
      hub,
      enrol: true,
      router: { port: router.port, timeoutMs: NEVER, connectTimeoutMs: NEVER },
      // Telemetry reads pile up on the router that never answers.
      reports: { telemetryIntervalMs: 50 },
    });
    await waitUntil(() => agent.link.state === 'ready', 10_000, 'link ready');
    const id = hub.sendCommand({ name: 'router.ping' });
    const journal = new CommandJournal(new StateDir(agent.stateDir).journalDir);
    await waitUntil(async () => (await journal.get(id))?.state === 'RUNNING', 5000, 'command running');
    await waitUntil(() => router.open() > 0, 5000, 'router connection attempt');

    // The controller goes away: the agent is now retrying a port that refuses.
    await hub.stop();
    await waitUntil(() => agent.link.state !== 'ready', 5000, 'link down');
    await agent.stop();

    const entry = await journal.get(id);
    expect(entry).to.deep.include({ state: 'FAILED', result_sent: false });
    expect(entry!.result).to.deep.equal({
      id,
      status: 'FAILED',
      fault: { code: 'AGENT_ERROR', message: 'the agent stopped during the command', retryable: true },
    });
    // The reads cut short by the stop say nothing about the router: no "unreachable" telemetry.
    expect(await readdir(new StateDir(agent.stateDir).outboxDir)).to.deep.equal([]);
    // Nothing of the agent is left holding the router's port.
    await waitUntil(() => router.open() === 0, 5000, 'router connection closed');
    expect(agent.link.state).to.equal('stopped');
  });
});
