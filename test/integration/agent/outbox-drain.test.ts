import { expect } from 'chai';
import { Outbox } from '../../../agent/state/outbox.js';
import { join } from 'node:path';
import { FakeHub } from '../../support/fake-hub.js';
import { afterTest, cleanUp, startSim, startTestAgent, tempStateDir, waitUntil } from './agent-harness.js';

describe('agent outbox over the link', () => {
  afterEach(cleanUp);

  async function enrolledStateDir(hub: FakeHub): Promise<string> {
    const stateDir = await tempStateDir();
    const agent = await startTestAgent({ hub, enrol: true, stateDir });
    await waitUntil(() => agent.link.state === 'ready');
    await waitUntil(() => agent.outbox.size === 0, 5000, 'initial facts acked');
    await agent.stop();
    return stateDir;
  }

  it('keeps reports across a restart and drains them exactly once, in order, in batches', async () => {
    const sim = await startSim();
    const hub = await new FakeHub().start();
    const { port, keyPair } = hub;
    const stateDir = await enrolledStateDir(hub);
    const agents = hub.agents;
    await hub.stop();

    // Offline: telemetry piles up in the outbox.
    const offline = await startTestAgent({ hub, sim, stateDir });
    for (let i = 0; i < 120; i++) await offline.reports.reportTelemetry();
    expect(offline.outbox.size).to.equal(120);
    await offline.stop();

    // Restart: the files are still there, in the same order.
    const reopened = await Outbox.open(join(stateDir, 'outbox'));
    const waiting = reopened.entries().map((entry) => entry.id);
    expect(waiting).to.have.length(120);

    const back = await new FakeHub({ keyPair, port }).start();
    afterTest(() => back.stop());
    for (const [id, record] of agents) back.agents.set(id, record);
    back.withholdAcks = true;
    const agent = await startTestAgent({ hub: back, sim, stateDir, link: { reportBatchSize: 50 } });
    await waitUntil(() => back.reportLog.length === 50, 5000, 'first batch');
    // No acks: the window stays full and nothing more goes out. The subject is an absence, watched
    // for 300 ms (reports are ready to go the whole time: the outbox holds 120).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(back.reportLog).to.have.length(50);
    expect(agent.outbox.size).to.be.at.least(120);

    back.releaseAcks();
    await waitUntil(() => agent.outbox.size === 0, 10_000, 'outbox drained');
    const sent = back.reportLog.map((report) => report.id);
    expect(new Set(sent).size).to.equal(sent.length, 'no report sent twice');
    expect(back.reports.size).to.equal(sent.length);
    // The offline reports went first, oldest first; the facts of this connection came after.
    expect(sent.slice(0, 120)).to.deep.equal(waiting);
    expect(back.reportLog.slice(120).map((report) => report.kind)).to.include('facts');
    expect(await Outbox.count(join(stateDir, 'outbox'))).to.equal(0);
  });

  for (const [versions, frames] of [
    [undefined, 'one report a frame'],
    [[1, 2, 3], 'its window in one batch'],
  ] as const)
    it(`sends a backlog to a version ${versions ? 3 : 1} controller ${frames}`, async () => {
      const hub = await new FakeHub(versions ? { versions: [...versions] } : {}).start();
      const { port, keyPair } = hub;
      const stateDir = await enrolledStateDir(hub);
      const agents = hub.agents;
      await hub.stop();
      const offline = await startTestAgent({ hub, stateDir });
      for (let i = 0; i < 30; i++) await offline.outbox.add('event', { n: i }, new Date());
      await offline.stop();

      const back = await new FakeHub({
        keyPair,
        port,
        ...(versions ? { versions: [...versions] } : {}),
      }).start();
      afterTest(() => back.stop());
      for (const [id, record] of agents) back.agents.set(id, record);
      const agent = await startTestAgent({ hub: back, stateDir, link: { reportBatchSize: 20 } });
      await waitUntil(() => agent.outbox.size === 0, 10_000, 'outbox drained');
      const events = back.reportLog.filter((r) => r.kind === 'event').map((r) => (r.data as { n: number }).n);
      expect(events).to.deep.equal([...Array(30).keys()]);
      // The window (20) first; then, as acks come back, what the window allows again.
      if (versions) expect(back.reportFrames[0]).to.equal(20);
      else expect(back.reportFrames.every((n) => n === 1)).to.equal(true);
    });

  it('re-sends unacknowledged reports after a reconnect; the hub stores each once', async () => {
    const hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    const agent = await startTestAgent({ hub, enrol: true });
    await waitUntil(() => agent.link.state === 'ready');
    await waitUntil(() => agent.outbox.size === 0);

    hub.withholdAcks = true;
    for (let i = 0; i < 5; i++) await agent.outbox.add('event', { n: i }, new Date());
    agent.link.notifyOutbox();
    await waitUntil(() => hub.reportLog.length === 5, 5000, 'five reports sent');

    hub.withholdAcks = false;
    hub.dropAll();
    await waitUntil(() => agent.outbox.size === 0, 5000, 'drained after reconnect');
    expect(hub.reportLog).to.have.length(10);
    expect(hub.reports.size).to.equal(5);
  });

  it('sends a facts report after each connection', async () => {
    const sim = await startSim();
    const hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    const agent = await startTestAgent({ hub, sim, enrol: true });
    await waitUntil(() => [...hub.reports.values()].filter((r) => r.kind === 'facts').length === 1);
    hub.dropAll();
    await waitUntil(
      () => [...hub.reports.values()].filter((r) => r.kind === 'facts').length === 2,
      5000,
      'facts again',
    );
    const facts = [...hub.reports.values()].find((r) => r.kind === 'facts');
    expect(facts?.data).to.include({ serial: 'A1B2C3D4E5F6', routeros_version: '7.19' });
    await waitUntil(() => agent.outbox.size === 0, 5000, 'facts acked and deleted');
  });
});
