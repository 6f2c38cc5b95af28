// The agent link's handshake and its refusals, over real sockets.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import sinon from 'sinon';
import { generateKeyPair, generateSessionNonce } from '../../../protocol/index.js';
import { forEachDatabase } from '../../support/databases.js';
import { FakeAgent } from '../../support/fake-agent.js';
import { waitFor } from '../../support/wait-for.js';
import { eventually, expectRefused, startHub, type HubTest } from './hub-fixture.js';

const DAY = 86_400_000;

forEachDatabase('agent link', (database) => {
  let h: HubTest;
  beforeEach(async () => (h = await startHub(database, {}, { handshakeTimeoutMs: 300 })));
  afterEach(async () => h.t.close());

  it('enrols an agent: signed challenge, welcome with its ids, the controller key pinned', async () => {
    const { allocation, enrolment } = await h.allocate();
    const agent = new FakeAgent(h.agentUrl);
    const link = await agent.enrol(enrolment.code.toLowerCase());
    const [challenge, welcome] = link.frames;
    expect(challenge!.type).to.equal('challenge');
    expect(challenge!.seq).to.equal(1);
    expect(welcome!.type).to.equal('welcome');
    expect(welcome!.body).to.include({ allocation_id: allocation.id, heartbeat_seconds: 30 });
    expect(agent.agentId).to.match(/^[0-9a-f-]{36}$/);
    expect(agent.controllerKey).to.equal(h.t.controller.services.hub.identity.publicKey);
    expect(link.badFrames).to.deep.equal([]);
    expect(await h.allocation(allocation.id)).to.include({
      status: 'ENROLLED',
      link_state: 'CONNECTED',
      agent_version: '0.1.0-test',
      enrolled_at: h.t.clock.now().toISOString(),
    });

    // Later connections authenticate by signing a fresh challenge with the registered key.
    await link.close();
    const again = await agent.connect();
    expect(again.sid).to.not.equal(link.sid);
    expect((await again.waitFor('welcome')).body.agent_id).to.equal(agent.agentId);
  });

  it('refuses a code already used (ENROL_CODE_INVALID), and the first agent keeps working', async () => {
    const { enrolment } = await h.allocate();
    const first = new FakeAgent(h.agentUrl);
    await first.enrol(enrolment.code);
    const second = new FakeAgent(h.agentUrl);
    await expectRefused(second.enrol(enrolment.code), 'ENROL_CODE_INVALID');
    expect((await second.link!.closed).code).to.equal(1008);
    await first.connect();
  });

  it('refuses an expired code (24 h) and an unknown one with the same code', async () => {
    const { allocation, enrolment } = await h.allocate();
    h.t.clock.advance(DAY);
    await expectRefused(new FakeAgent(h.agentUrl).enrol(enrolment.code), 'ENROL_CODE_INVALID');
    await expectRefused(new FakeAgent(h.agentUrl).enrol('ABCD-EFGH-JKMN'), 'ENROL_CODE_INVALID');
    expect(await h.allocation(allocation.id)).to.include({ status: 'ENROLMENT_EXPIRED', enrolled_at: null });
  });

  it('refuses an enrol not signed by the key it registers', async () => {
    const { allocation, enrolment } = await h.allocate();
    const agent = new FakeAgent(h.agentUrl);
    const link = await agent.dial();
    link.send(
      'enrol',
      { code: enrolment.code.replaceAll('-', ''), agent_key: agent.keys.publicKey, agent_version: '1' },
      { secretKey: generateKeyPair().secretKey },
    );
    await expectRefused(link.handshakeOutcome(), 'BAD_SIGNATURE');
    // The code was not spent by the forgery.
    expect(await h.allocation(allocation.id)).to.include({ status: 'AWAITING_ENROLMENT' });
    await new FakeAgent(h.agentUrl).enrol(enrolment.code);
  });

  it('refuses a hello signed by another key, and a hello naming no enrolled agent (AGENT_UNKNOWN)', async () => {
    const agent = await h.enrolledAgent();
    await agent.link!.close();
    const forger = await agent.dial();
    forger.send(
      'hello',
      { agent_id: agent.agentId!, agent_version: '1', capabilities: [] },
      { secretKey: generateKeyPair().secretKey },
    );
    await expectRefused(forger.handshakeOutcome(), 'AGENT_UNKNOWN');

    const stranger = new FakeAgent(h.agentUrl);
    stranger.agentId = randomUUID();
    await expectRefused(stranger.connect(), 'AGENT_UNKNOWN');
    expect((await stranger.link!.closed).code).to.equal(1008);
  });

  it('refuses a revoked agent (AGENT_REVOKED), but only once its signature is good', async () => {
    const agent = await h.enrolledAgent();
    await agent.link!.close();
    await h.t.db.db
      .updateTable('allocations')
      .set({ revoked_at: h.t.clock.now().toISOString() })
      .where('id', '=', agent.allocationId!)
      .execute();
    const forger = await agent.dial();
    forger.send(
      'hello',
      { agent_id: agent.agentId!, agent_version: '1', capabilities: [] },
      { secretKey: generateKeyPair().secretKey },
    );
    await expectRefused(forger.handshakeOutcome(), 'AGENT_UNKNOWN');
    await expectRefused(agent.connect(), 'AGENT_REVOKED');
  });

  it('revokes an agent from the API: its live link closes with AGENT_REVOKED and it is refused for good', async () => {
    const agent = await h.enrolledAgent();
    const other = await h.enrolledAgent();
    const path = `/api/v1/clients/allocations/${agent.allocationId!}/revoke`;
    // Another tenant's revocation finds nothing and closes nothing.
    const stranger = await h.t.account('client');
    const refused = await h.t.request('POST', path, { token: stranger.token });
    expect(refused.status).to.equal(404);
    expect(refused.body.error.code).to.equal('ALLOCATION_NOT_FOUND');
    expect(h.t.controller.services.hub.holds(agent.allocationId!)).to.equal(true);

    const link = agent.link!;
    const res = await h.t.request('POST', path, { token: h.client.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.include({ status: 'REVOKED', link_state: 'DISCONNECTED' });
    await link.closed;
    expect(link.error?.code).to.equal('AGENT_REVOKED');
    await expectRefused(agent.connect(), 'AGENT_REVOKED');
    // Again: the same answer, nothing else closed.
    h.t.clock.advance(60_000);
    const again = await h.t.request('POST', path, { token: h.client.token });
    expect(again.body.data).to.deep.equal(res.body.data);
    other.link!.send('ping', { t: 1 });
    await other.link!.waitFor('pong');
  });

  it('closes the link on a forged frame after the handshake (BAD_SIGNATURE)', async () => {
    const agent = await h.enrolledAgent();
    const link = agent.link!;
    link.send('ping', { t: 1 }, { secretKey: generateKeyPair().secretKey });
    const closed = await link.closed;
    expect(closed).to.deep.equal({ code: 1008, reason: 'BAD_SIGNATURE' });
    expect(link.error?.code).to.equal('BAD_SIGNATURE');
    expect(link.frames.some((f) => f.type === 'pong')).to.equal(false);
    await eventually(
      () => h.allocation(agent.allocationId!),
      (a) => a.link_state === 'DISCONNECTED',
    );
  });

  it('refuses a replayed frame (same seq) and closes the connection', async () => {
    const agent = await h.enrolledAgent();
    const link = agent.link!;
    const frame = link.send('ping', { t: 42 });
    await link.waitFor('pong', (b) => b.t === 42);
    link.sendRaw(frame);
    expect((await link.closed).code).to.equal(1008);
    expect(link.error?.code).to.equal('REPLAYED_SEQUENCE');
    expect(link.frames.filter((f) => f.type === 'pong')).to.have.length(1);
  });

  it('refuses a frame captured in another session (WRONG_SESSION)', async () => {
    const agent = await h.enrolledAgent();
    const captured = agent.link!.send('ping', { t: 7 });
    await agent.link!.waitFor('pong');
    await agent.link!.close();
    const link = await agent.connect();
    // Its seq (2) is fresh on this link and its signature good: only the session id refuses it.
    link.sendRaw(captured);
    expect((await link.closed).code).to.equal(1008);
    expect(link.error?.code).to.equal('WRONG_SESSION');
  });

  it('refuses a frame signed for another session id even in the handshake', async () => {
    const agent = await h.enrolledAgent();
    await agent.link!.close();
    const link = await agent.dial();
    link.send(
      'hello',
      { agent_id: agent.agentId!, agent_version: '1', capabilities: [] },
      { sid: generateSessionNonce() },
    );
    await expectRefused(link.handshakeOutcome(), 'WRONG_SESSION');
  });

  it('refuses anything but enrol or hello first, garbage, and a second hello', async () => {
    const agent = await h.enrolledAgent();
    await agent.link!.close();
    const early = await agent.dial();
    early.send('ping', { t: 1 });
    await expectRefused(early.handshakeOutcome(), 'UNEXPECTED_MESSAGE');

    const garbage = await agent.dial();
    garbage.sendRaw('not json');
    await expectRefused(garbage.handshakeOutcome(), 'BAD_MESSAGE');

    const twice = await agent.connect();
    twice.send('hello', { agent_id: agent.agentId!, agent_version: '1', capabilities: [] });
    expect((await twice.closed).code).to.equal(1008);
    expect(twice.error?.code).to.equal('UNEXPECTED_MESSAGE');
  });

  it('closes a connection that never says hello (HANDSHAKE_TIMEOUT)', async () => {
    const link = await new FakeAgent(h.agentUrl).dial();
    const closed = await link.closed;
    expect(link.error?.code).to.equal('HANDSHAKE_TIMEOUT');
    expect(closed.code).to.equal(1008);
  });

  it('marks the link CONNECTED, then DISCONNECTED with last_seen_at when the agent leaves', async () => {
    const agent = await h.enrolledAgent();
    const connectedAt = h.t.clock.now().toISOString();
    expect(await h.allocation(agent.allocationId!)).to.include({
      link_state: 'CONNECTED',
      last_seen_at: connectedAt,
    });
    h.t.clock.advance(60_000);
    await agent.link!.close();
    const after = await eventually(
      () => h.allocation(agent.allocationId!),
      (a) => a.link_state === 'DISCONNECTED',
    );
    expect(after.last_seen_at).to.equal(h.t.clock.now().toISOString());
    expect(h.t.controller.services.hub.holds(agent.allocationId!)).to.equal(false);
  });

  it('records every link down when many agents leave at once, but not a link a new connection took', async () => {
    const agents = await Promise.all(Array.from({ length: 24 }, () => h.enrolledAgent()));
    const [back, ...gone] = agents;
    const firstLink = back!.link!;
    // Releases are written together: the old connection's (closed once the new one is recorded)
    // shares a statement with the others and must leave the new connection's row alone.
    await Promise.all([...gone.map((a) => a.link!.close()), back!.connect()]);
    expect((await firstLink.closed).code).to.equal(1008);
    for (const agent of gone) {
      await eventually(
        () => h.allocation(agent.allocationId!),
        (a) => a.link_state === 'DISCONNECTED',
      );
    }
    expect(await h.allocation(back!.allocationId!)).to.include({ link_state: 'CONNECTED' });
    expect(h.t.controller.services.hub.holds(back!.allocationId!)).to.equal(true);
  });

  it('lets a second connection of the same agent replace the first (SESSION_REPLACED)', async () => {
    const agent = await h.enrolledAgent();
    const first = agent.link!;
    const released = sinon.spy(h.t.controller.services.hub, 'release');
    try {
      const second = await agent.connect();
      expect((await first.closed).code).to.equal(1008);
      expect(first.error?.code).to.equal('SESSION_REPLACED');
      // The old connection's close must not mark the link down: the new one holds it.
      await waitFor(() => released.called, { what: 'the hub to release the old session' });
      await released.firstCall.returnValue;
      expect(released.callCount).to.equal(1);
      expect(await h.allocation(agent.allocationId!)).to.include({ link_state: 'CONNECTED' });
      second.send('ping', { t: 5 });
      await second.waitFor('pong');
    } finally {
      released.restore();
    }
  });

  it('refuses websocket upgrades on other paths', async () => {
    const agent = new FakeAgent(h.agentUrl.replace('/agent/v1', '/agent/v2'));
    const err = await agent.dial().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.match(/404/);
  });

  it('tells connected agents SHUTTING_DOWN when the controller stops', async () => {
    const agent = await h.enrolledAgent();
    await h.t.close();
    const closed = await agent.link!.closed;
    expect(closed.code).to.equal(1001);
    expect(agent.link!.error?.code).to.equal('SHUTTING_DOWN');
    h = await startHub(database); // afterEach closes something
  });
});

forEachDatabase('agent link heartbeat', (database) => {
  it('drops an agent that stops answering pings and marks it DISCONNECTED', async () => {
    const h = await startHub(database, {}, { heartbeatMs: 100 });
    try {
      const live = await h.enrolledAgent();
      const silent = new FakeAgent(h.agentUrl);
      silent.answerPings = false;
      await silent.enrol((await h.allocate()).enrolment.code);
      const closed = await silent.link!.closed;
      expect(closed.code).to.equal(1006);
      await eventually(
        () => h.allocation(silent.allocationId!),
        (a) => a.link_state === 'DISCONNECTED',
      );
      expect(await h.allocation(live.allocationId!)).to.include({ link_state: 'CONNECTED' });
    } finally {
      await h.t.close();
    }
  });
});
