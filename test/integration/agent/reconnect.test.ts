import { expect } from 'chai';
import { FakeHub } from '../../support/fake-hub.js';
import { afterTest, cleanUp, startTestAgent, waitUntil } from './agent-harness.js';

describe('agent link reconnection', () => {
  afterEach(cleanUp);

  it('reconnects with hello after the hub drops the socket', async () => {
    const hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    const agent = await startTestAgent({ hub, enrol: true });
    await waitUntil(() => agent.link.state === 'ready');

    hub.dropAll();
    await waitUntil(() => hub.hellos.length === 1 && agent.link.state === 'ready', 5000, 'reconnect');
    hub.dropAll();
    await waitUntil(() => hub.hellos.length === 2 && agent.link.state === 'ready', 5000, 'second reconnect');
    expect(hub.liveConnections).to.have.length(1);
  });

  it('keeps retrying while the controller is down, then connects when it is back', async () => {
    const hub = await new FakeHub().start();
    const port = hub.port;
    const agent = await startTestAgent({ hub, enrol: true });
    await waitUntil(() => agent.link.state === 'ready');
    const keyPair = hub.keyPair;
    const agents = hub.agents;
    await hub.stop();

    const waits: number[] = [];
    agent.link.on('waiting', (_delay, attempt) => waits.push(attempt));
    await waitUntil(() => waits.length >= 3, 5000, 'several attempts');
    // The ladder climbs while failures go on.
    expect(waits.slice(0, 3)).to.deep.equal([waits[0], waits[0]! + 1, waits[0]! + 2]);

    const back = await new FakeHub({ keyPair, port }).start();
    afterTest(() => back.stop());
    for (const [id, record] of agents) back.agents.set(id, record);
    await waitUntil(() => agent.link.state === 'ready', 5000, 'ready on the new hub');
    expect(back.hellos).to.have.length(1);
  });

  it('drops a silent controller after 2.5 heartbeats and reconnects', async () => {
    const hub = await new FakeHub({ heartbeatSeconds: 1, autoPong: false }).start();
    afterTest(() => hub.stop());
    const agent = await startTestAgent({ hub, enrol: true });
    await waitUntil(() => agent.link.state === 'ready');
    const codes: string[] = [];
    agent.link.on('down', (error) => codes.push(error.code));
    const started = Date.now();
    await waitUntil(() => codes.length > 0, 6000, 'heartbeat timeout');
    const elapsed = Date.now() - started;
    expect(codes[0]).to.equal('HEARTBEAT_TIMEOUT');
    expect(elapsed).to.be.within(2000, 4500);
    await waitUntil(() => agent.link.state === 'ready', 5000, 'reconnected');
  });
});

describe('agent link backoff reset', () => {
  afterEach(cleanUp);

  async function attemptsAfterTwoDrops(stableAfterMs: number): Promise<number[]> {
    const hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    const agent = await startTestAgent({ hub, enrol: true, link: { stableAfterMs } });
    const attempts: number[] = [];
    agent.link.on('waiting', (_delay, attempt) => attempts.push(attempt));
    for (let drop = 1; drop <= 2; drop++) {
      await waitUntil(() => agent.link.state === 'ready' && hub.liveConnections.length === 1);
      // The subject: the connection holds 50 ms, more than a stableAfterMs of 20, less than 60,000.
      await new Promise((resolve) => setTimeout(resolve, 50));
      hub.dropAll();
      await waitUntil(() => attempts.length === drop, 5000, `wait after drop ${drop}`);
    }
    return attempts;
  }

  it('climbs after connections that did not hold', async () => {
    expect(await attemptsAfterTwoDrops(60_000)).to.deep.equal([0, 1]);
  });

  it('starts over after a connection that held', async () => {
    expect(await attemptsAfterTwoDrops(20)).to.deep.equal([0, 0]);
  });
});
