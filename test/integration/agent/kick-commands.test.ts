// The kick's two agent commands against the RouterOS simulator: `hotspot.active.remove` counts a
// user's entries before and after (a router that keeps one shows it), and `radius.disconnect`
// reports the answer of `/radius incoming` with its Error-Cause, or NONE without a relay.
import { expect } from 'chai';
import radius from 'radius';
import { FakeHub } from '../../support/fake-hub.js';
import { freeUdpPort } from '../../support/free-port.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { afterTest, cleanUp, startSim, startTestAgent, waitUntil } from './agent-harness.js';

describe('kick commands against the RouterOS simulator', () => {
  let hub: FakeHub;
  let sim: RouterSim;
  let coaPort: number;

  beforeEach(async () => {
    hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    coaPort = await freeUdpPort();
    sim = await startSim({ radiusIncomingPort: coaPort });
  });
  afterEach(cleanUp);

  async function run(name: string, params: Record<string, unknown>) {
    const id = hub.sendCommand({ name, params });
    await waitUntil(() => hub.results.some((r) => r.id === id), 10_000, `result of ${name}`);
    return hub.results.find((r) => r.id === id)!;
  }

  it('hotspot.active.remove: the user entries removed, kept (a router that keeps them), or none', async () => {
    const agent = await startTestAgent({ hub, sim, enrol: true });
    await waitUntil(() => agent.link.state === 'ready', 5000, 'link ready');
    sim.state.table('/ip/hotspot/user').insert({ name: 'loc-1', password: 'p', profile: 'default' });
    sim.state.table('/ip/hotspot/user').insert({ name: 'loc-2', password: 'p', profile: 'default' });
    expect((await sim.hotspotLogin({ user: 'loc-1', password: 'p', ip: '10.5.50.61' })).ok).to.equal(true);
    expect((await sim.hotspotLogin({ user: 'loc-2', password: 'p', ip: '10.5.50.62' })).ok).to.equal(true);

    let result = await run('hotspot.active.remove', { user: 'loc-1' });
    expect(result).to.deep.include({ status: 'DONE', output: { found: 1, removed: 1, remaining: 0 } });
    // At another address than the session's: nothing of it is touched.
    result = await run('hotspot.active.remove', { user: 'loc-2', address: '10.5.50.99' });
    expect(result.output).to.deep.equal({ found: 0, removed: 0, remaining: 0 });
    sim.faults.set({ stuckSessions: ['loc-2'] });
    result = await run('hotspot.active.remove', { user: 'loc-2', address: '10.5.50.62' });
    expect(result.output).to.deep.equal({ found: 1, removed: 0, remaining: 1 });
    const users = sim.state
      .table('/ip/hotspot/active')
      .list()
      .map((r) => r.props.user);
    expect(users).to.include('loc-2').and.not.include('loc-1');
  });

  it('radius.disconnect: the NAK and its Error-Cause from /radius incoming; NONE without a relay', async () => {
    await sim.runScript(
      '/radius add address=127.0.0.1 secret=kick-secret service=hotspot\n/radius incoming set accept=yes',
    );
    expect(await sim.radiusIncomingPort()).to.equal(coaPort);
    const packet = (attributes: [string, string][]) =>
      radius
        .encode({ code: 'Disconnect-Request', secret: 'kick-secret', identifier: 9, attributes })
        .toString('base64');
    const agent = await startTestAgent({
      hub,
      sim,
      enrol: true,
      radiusRelay: { host: '127.0.0.1', authPort: 0, acctPort: 0, allow: [], coaPort },
    });
    await waitUntil(() => agent.link.state === 'ready', 5000, 'link ready');
    let result = await run('radius.disconnect', { packet: packet([['Framed-IP-Address', '10.5.50.77']]) });
    expect(result).to.deep.include({ status: 'DONE', output: { answer: 'NAK', error_cause: 503 } });
    result = await run('radius.disconnect', { packet: packet([['User-Name', 'someone']]) });
    expect(result.output).to.deep.equal({ answer: 'NAK', error_cause: 402 });
  });

  it('radius.disconnect answers NONE when the agent runs without relay', async () => {
    const agent = await startTestAgent({ hub, sim, enrol: true });
    await waitUntil(() => agent.link.state === 'ready', 5000, 'link ready');
    const result = await run('radius.disconnect', { packet: Buffer.alloc(20).toString('base64') });
    expect(result).to.deep.include({ status: 'DONE', output: { answer: 'NONE', error_cause: null } });
  });
});
