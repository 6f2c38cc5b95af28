import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { SILENT_LOGGER } from '../../../agent/logger.js';
import { routerCatalogue } from '../../../agent/commands/command-catalogue.js';
import type { CommandCatalogue } from '../../../agent/commands/command-catalogue.js';
import { CommandJournal } from '../../../agent/state/command-journal.js';
import { join } from 'node:path';
import { FakeHub } from '../../support/fake-hub.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { afterTest, cleanUp, startSim, startTestAgent, waitUntil } from './agent-harness.js';

/** The router catalogue, counting how many times each command really ran. */
function countingCatalogue(): { catalogue: CommandCatalogue; runs: Map<string, number> } {
  const runs = new Map<string, number>();
  const catalogue = Object.fromEntries(
    Object.entries(routerCatalogue(SILENT_LOGGER)).map(([name, handler]) => [
      name,
      (context: never) => {
        runs.set(name, (runs.get(name) ?? 0) + 1);
        return (handler as (c: never) => Promise<unknown>)(context);
      },
    ]),
  ) as unknown as CommandCatalogue;
  return { catalogue, runs };
}

describe('agent commands against the RouterOS simulator', () => {
  let hub: FakeHub;
  let sim: RouterSim;

  beforeEach(async () => {
    hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    sim = await startSim({ seed: { hotspotUsers: 12 } });
  });
  afterEach(cleanUp);

  async function ready(options: { catalogue?: CommandCatalogue; router?: Record<string, unknown> } = {}) {
    const agent = await startTestAgent({ hub, sim, enrol: true, ...options });
    await waitUntil(() => agent.link.state === 'ready', 5000, 'link ready');
    return agent;
  }

  function resultOf(id: string) {
    return hub.results.find((r) => r.id === id);
  }

  async function run(name: string, params: Record<string, unknown> = {}, deadline?: Date) {
    const id = hub.sendCommand({ name, params, ...(deadline ? { deadline } : {}) });
    await waitUntil(() => resultOf(id) !== undefined, 10_000, `result of ${name}`);
    return resultOf(id)!;
  }

  it('router.facts: acks first, then answers DONE with the facts', async () => {
    const agent = await ready();
    const result = await run('router.facts');
    expect(result.status).to.equal('DONE');
    expect(result.output).to.include({ serial: 'A1B2C3D4E5F6', routeros_version: '7.19' });
    const frames = hub.liveConnections[0]!.received.filter((f) => f.type === 'ack' || f.type === 'result');
    expect(frames.map((f) => f.type)).to.deep.equal(['ack', 'result']);
    const journal = new CommandJournal(join(agent.stateDir, 'journal'));
    // The journal notes the result as sent just after the send; give it that moment.
    await waitUntil(async () => (await journal.get(result.id))?.result_sent === true, 5000, 'result_sent');
    expect((await journal.get(result.id))?.state).to.equal('DONE');
  });

  it('router.ping and hotspot.users.export answer DONE', async () => {
    await ready();
    const ping = await run('router.ping');
    expect(ping.status).to.equal('DONE');
    expect((ping.output as { rtt_ms: number }).rtt_ms).to.be.a('number');
    const exported = await run('hotspot.users.export', { include_profiles: true });
    expect(exported.status).to.equal('DONE');
    const output = exported.output as { users: unknown[]; profiles: unknown[]; count: number };
    expect(output.count).to.equal(12);
    expect(output.users).to.have.length(12);
    expect(output.profiles.length).to.be.greaterThan(0);
  });

  it('backup.save brings the file back with its size and sha256', async () => {
    await ready();
    const result = await run('backup.save', { name: 'nightly' });
    expect(result.status).to.equal('DONE');
    const output = result.output as {
      file_name: string;
      size: number;
      sha256: string;
      content_base64: string;
    };
    const bytes = Buffer.from(output.content_base64, 'base64');
    expect(output.file_name).to.equal('nightly.backup');
    expect(output.size).to.equal(bytes.length).and.be.greaterThan(0);
    expect(output.sha256).to.equal(createHash('sha256').update(bytes).digest('hex'));
    const onRouter = sim.state.table('/file').findBy('name', 'nightly.backup');
    expect(onRouter?.blob?.equals(bytes)).to.equal(true);
  });

  it('executes a command re-delivered after a reconnect only once and re-sends the stored result', async () => {
    const { catalogue, runs } = countingCatalogue();
    const agent = await ready({ catalogue });
    const id = hub.sendCommand({ name: 'router.facts' });
    await waitUntil(() => resultOf(id) !== undefined);

    hub.dropAll();
    await waitUntil(() => hub.hellos.length === 1 && agent.link.state === 'ready', 5000, 'reconnect');
    hub.sendCommand({ id, name: 'router.facts' });
    await waitUntil(() => hub.results.filter((r) => r.id === id).length === 2, 5000, 'second result');

    const [first, second] = hub.results.filter((r) => r.id === id);
    expect(second).to.deep.equal(first);
    expect(runs.get('router.facts')).to.equal(1);
  });

  it('only acks a command re-delivered while it is still running', async () => {
    const { catalogue, runs } = countingCatalogue();
    await ready({ catalogue });
    sim.faults.set({ delayMs: 300 });
    const id = hub.sendCommand({ name: 'router.ping' });
    await waitUntil(() => hub.acks.includes(id));
    hub.sendCommand({ id, name: 'router.ping' });
    await waitUntil(() => resultOf(id) !== undefined, 5000);
    // The link keeps its frames in order: a second result of the first command would have come
    // before the result of a command sent after the first result.
    sim.faults.clear();
    const next = hub.sendCommand({ name: 'router.ping' });
    await waitUntil(() => resultOf(next) !== undefined, 5000);
    expect(hub.acks.filter((a) => a === id)).to.have.length(2);
    expect(hub.results.filter((r) => r.id === id)).to.have.length(1);
    expect(runs.get('router.ping')).to.equal(2);
  });

  it('refuses a command outside the catalogue with UNKNOWN_COMMAND, and bad params with BAD_PARAMS', async () => {
    await ready();
    const unknown = await run('system.reboot');
    expect(unknown.status).to.equal('FAILED');
    expect(unknown.fault).to.include({ code: 'UNKNOWN_COMMAND', retryable: false });
    const bad = await run('backup.save', { name: '../etc/passwd' });
    expect(bad.fault).to.include({ code: 'BAD_PARAMS', retryable: false });
    expect(hub.acks).to.include.members([unknown.id, bad.id]);
  });

  it('does not start a command whose deadline has passed (DEADLINE_PASSED)', async () => {
    const { catalogue, runs } = countingCatalogue();
    await ready({ catalogue });
    const result = await run('router.facts', {}, new Date(Date.now() - 1000));
    expect(result.status).to.equal('FAILED');
    expect(result.fault).to.include({ code: 'DEADLINE_PASSED', retryable: false });
    expect(runs.get('router.facts')).to.equal(undefined);
  });

  for (const [clock, offset] of [
    ['a day ahead', 86_400_000],
    ['a day behind', -86_400_000],
  ] as const) {
    it(`runs the commands of a controller ${clock} that sends no ttl_ms (deadline read against its own ts)`, async () => {
      hub.clockOffsetMs = offset;
      await ready();
      const result = await run('router.facts');
      expect(result.status, JSON.stringify(result.fault)).to.equal('DONE');
      // Its deadline already passed on its own clock: refused, whatever the agent's clock says.
      const late = await run('router.facts', {}, new Date(Date.now() + offset - 1000));
      expect(late.fault).to.include({ code: 'DEADLINE_PASSED' });
    });
  }

  it('answers FAILED ROUTER_UNREACHABLE when the router is down, and stays up', async () => {
    const agent = await ready();
    await sim.stop();
    const result = await run('router.facts');
    expect(result.status).to.equal('FAILED');
    expect(result.fault).to.include({ code: 'ROUTER_UNREACHABLE', retryable: true });
    expect(agent.link.state).to.equal('ready');
    const again = await run('router.ping');
    expect(again.fault?.code).to.equal('ROUTER_UNREACHABLE');
  });

  it('answers FAILED ROUTER_TIMEOUT when the router goes silent mid-command, then recovers', async () => {
    const agent = await ready({ router: { timeoutMs: 400 } });
    expect((await run('router.ping')).status).to.equal('DONE');
    sim.faults.set({ dropSocketSilently: true });
    const result = await run('hotspot.users.export');
    expect(result.status).to.equal('FAILED');
    expect(result.fault).to.include({ code: 'ROUTER_TIMEOUT', retryable: true });
    expect(agent.link.state).to.equal('ready');

    sim.faults.clear();
    const after = await run('router.ping');
    expect(after.status).to.equal('DONE');
  });

  it('handles !empty from RouterOS 7.19 (an empty user list is DONE with count 0)', async () => {
    expect(sim.caps.emptyReply).to.equal(true);
    const users = sim.state.table('/ip/hotspot/user');
    for (const record of users.list()) users.delete(record);
    await ready();
    const result = await run('hotspot.users.export');
    expect(result.status).to.equal('DONE');
    expect(result.output).to.deep.equal({ users: [], count: 0 });
  });

  it('executes commands one at a time, in arrival order', async () => {
    await ready();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) hub.sendCommand({ id, name: 'router.ping' });
    await waitUntil(() => ids.every((id) => resultOf(id) !== undefined), 5000);
    // Executed one at a time, in arrival order.
    expect(hub.results.map((r) => r.id)).to.deep.equal(ids);
  });
});
