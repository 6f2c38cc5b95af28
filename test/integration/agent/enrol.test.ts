import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { generateKeyPair } from '../../../protocol/index.js';
import type { LinkError } from '../../../agent/link/link-error.js';
import { IdentityStore } from '../../../agent/state/identity-store.js';
import { FakeHub } from '../../support/fake-hub.js';
import { afterTest, cleanUp, startSim, startTestAgent, tempStateDir, waitUntil } from './agent-harness.js';

describe('agent enrolment and controller key pinning', () => {
  let hub: FakeHub;

  beforeEach(async () => {
    hub = await new FakeHub().start();
    afterTest(() => hub.stop());
  });
  afterEach(cleanUp);

  it('enrols with a code, saves its identity (0600) and pins the controller key', async () => {
    const sim = await startSim();
    const agent = await startTestAgent({ hub, sim, enrol: true });
    await waitUntil(() => agent.link.state === 'ready', 5000, 'link ready');

    const identity = await new IdentityStore(join(agent.stateDir, 'identity.json')).load();
    expect(identity).to.not.equal(undefined);
    expect(identity!.controller_key).to.equal(hub.keyPair.publicKey);
    expect(hub.agents.get(identity!.agent_id)?.publicKey).to.equal(identity!.agent_public_key);
    expect(identity!.allocation_id).to.equal(hub.agents.get(identity!.agent_id)?.allocationId);
    expect(identity!.controller_url).to.equal(hub.url);
    expect((await stat(join(agent.stateDir, 'identity.json'))).mode & 0o777).to.equal(0o600);
    // Facts read from the router travel with the enrolment.
    expect(hub.enrolments[0]?.facts?.serial).to.equal('A1B2C3D4E5F6');
    expect(hub.codes.size).to.equal(0);
  });

  it('says hello with the saved identity on the next start', async () => {
    const stateDir = await tempStateDir();
    const first = await startTestAgent({ hub, enrol: true, stateDir });
    await waitUntil(() => first.link.state === 'ready');
    await first.stop();

    const second = await startTestAgent({ hub, stateDir });
    await waitUntil(() => second.link.state === 'ready');
    expect(hub.enrolments).to.have.length(1);
    expect(hub.hellos).to.have.length(1);
    expect(hub.hellos[0]?.capabilities).to.include.members([
      'router.facts',
      'router.ping',
      'hotspot.users.export',
      'backup.save',
    ]);
  });

  it('refuses a later challenge signed by another controller key, and sends nothing', async () => {
    const stateDir = await tempStateDir();
    const first = await startTestAgent({ hub, enrol: true, stateDir });
    await waitUntil(() => first.link.state === 'ready');
    await first.stop();

    hub.challengeKey = generateKeyPair();
    const downs: LinkError[] = [];
    const second = await startTestAgent({ hub, stateDir });
    second.link.on('down', (error) => downs.push(error));
    await waitUntil(() => downs.length >= 2, 5000, 'two refusals');

    expect(downs[0]?.code).to.equal('BAD_SIGNATURE');
    expect(downs[0]?.source).to.equal('agent');
    expect(downs[0]?.final).to.equal(false);
    expect(hub.hellos).to.have.length(0);
    expect(second.link.state).to.not.equal('ready');
    // The pin is unchanged: the impostor's key was never saved.
    const identity = await new IdentityStore(join(stateDir, 'identity.json')).load();
    expect(identity!.controller_key).to.equal(hub.keyPair.publicKey);

    // Back to the real controller: the agent comes back on its own.
    hub.challengeKey = undefined;
    await waitUntil(() => second.link.state === 'ready', 5000, 'ready again');
  });

  it('stops for good on ENROL_CODE_INVALID and saves no identity', async () => {
    const agent = await startTestAgent({ hub, enrolCode: 'NOPE-NOPE-1' });
    const error = await agent.done;
    expect(error?.code).to.equal('ENROL_CODE_INVALID');
    expect(error?.final).to.equal(true);
    expect(await new IdentityStore(join(agent.stateDir, 'identity.json')).load()).to.equal(undefined);
    expect(hub.connections).to.have.length(1);
  });

  it('stops for good when the controller says AGENT_REVOKED', async () => {
    const agent = await startTestAgent({ hub, enrol: true });
    await waitUntil(() => agent.link.state === 'ready');
    const agentId = [...hub.agents.keys()][0]!;
    hub.revoke(agentId);
    hub.dropAll();
    const error = await agent.done;
    expect(error?.code).to.equal('AGENT_REVOKED');
    expect(agent.link.state).to.equal('stopped');
  });
});
