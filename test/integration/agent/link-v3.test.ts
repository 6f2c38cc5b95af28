// The agent in protocol version 3: it picks 3 when the controller offers it, runs commands and sends
// reports in sealed frames (the export compressed), and drops a controller frame whose MAC does not
// hold without acting on it.
import { expect } from 'chai';
import { sealFrame, SEALED_HEADER_BYTES } from '../../../protocol/index.js';
import { FakeHub } from '../../support/fake-hub.js';
import { afterTest, cleanUp, startSim, startTestAgent, waitUntil } from './agent-harness.js';

describe('agent link, protocol version 3', () => {
  afterEach(cleanUp);

  async function ready() {
    const hub = await new FakeHub({ versions: [1, 2, 3] }).start();
    afterTest(() => hub.stop());
    const sim = await startSim({ seed: { hotspotUsers: 300 } });
    const agent = await startTestAgent({ hub, sim, enrol: true });
    await waitUntil(() => agent.link.state === 'ready', 5000, 'link ready');
    return { hub, agent };
  }

  it('answers commands and sends reports in sealed frames once the controller offers version 3', async () => {
    const { hub } = await ready();
    const conn = hub.liveConnections[0]!;
    expect(conn.version).to.equal(3);
    expect(conn.keys).to.not.equal(undefined);
    const id = hub.sendCommand({ name: 'hotspot.users.export', params: {} });
    await waitUntil(() => hub.results.some((r) => r.id === id), 10_000, 'export result');
    const result = hub.results.find((r) => r.id === id)!;
    expect(result.status).to.equal('DONE');
    expect((result.output as { count: number }).count).to.equal(300);
    // The facts report after connecting came over the sealed link too.
    await waitUntil(() => hub.reportLog.some((r) => r.kind === 'facts'), 5000, 'facts report');
  });

  it('drops a controller frame whose MAC does not hold, runs nothing, and reconnects', async () => {
    const { hub, agent } = await ready();
    const conn = hub.liveConnections[0]!;
    const downs: string[] = [];
    agent.link.on('down', (error) => downs.push(error.code));
    const frame = sealFrame(
      'command',
      {
        id: crypto.randomUUID(),
        name: 'router.ping',
        params: {},
        deadline: new Date(Date.now() + 60_000).toISOString(),
      },
      { keys: conn.keys!, seq: conn.counter.next() },
    );
    frame[SEALED_HEADER_BYTES + 2] = frame[SEALED_HEADER_BYTES + 2]! ^ 1;
    conn.sendRaw(frame);
    await waitUntil(() => downs.length > 0, 5000, 'link down');
    expect(downs[0]).to.equal('BAD_SIGNATURE');
    expect(hub.acks).to.deep.equal([]);
    await waitUntil(() => hub.hellos.length === 1 && agent.link.state === 'ready', 5000, 'reconnected');
    expect(hub.liveConnections[0]!.version).to.equal(3);
  });
});
