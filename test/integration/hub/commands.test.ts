// The durable command queue, driven through the client routes and a fake agent on a real socket.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { FakeAgent, SAMPLE_FACTS } from '../../support/fake-agent.js';
import { eventually, startHub, type HubTest } from './hub-fixture.js';

forEachDatabase('agent commands', (database) => {
  let h: HubTest;
  beforeEach(async () => (h = await startHub(database)));
  afterEach(async () => h.t.close());

  const enqueue = (allocationId: string, body: unknown, token = h.client.token) =>
    h.t.request('POST', `/api/v1/clients/allocations/${allocationId}/commands`, { token, body });
  const read = async (allocationId: string, commandId: string) => {
    const res = await h.t.request(
      'GET',
      `/api/v1/clients/allocations/${allocationId}/commands/${commandId}`,
      {
        token: h.client.token,
      },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data;
  };
  const final = (allocationId: string, commandId: string) =>
    eventually(
      () => read(allocationId, commandId),
      (c) => ['DONE', 'FAILED', 'EXPIRED'].includes(c.state),
    );

  it('delivers a command queued while the agent was offline once, on connect, and ends DONE', async () => {
    const agent = await h.enrolledAgent();
    await h.goOffline(agent);
    const res = await enqueue(agent.allocationId!, { name: 'router.ping' });
    expect(res.status).to.equal(202);
    const queued = res.body.data;
    expect(queued).to.include({
      allocation_id: agent.allocationId,
      name: 'router.ping',
      state: 'QUEUED',
      attempts: 0,
      sent_at: null,
      output: null,
      fault: null,
    });
    expect(queued.params).to.deep.equal({});
    // The catalogue's default timeout (10 s for router.ping) sets the deadline.
    expect(Date.parse(queued.deadline) - h.t.clock.now().getTime()).to.equal(10_000);
    expect((await read(agent.allocationId!, queued.id)).state).to.equal('QUEUED');

    await agent.connect();
    const done = await final(agent.allocationId!, queued.id);
    expect(done).to.include({ state: 'DONE', attempts: 1 });
    expect(done.output).to.deep.equal({ rtt_ms: 2 });
    expect(done.sent_at).to.be.a('string');
    expect(done.acked_at).to.be.a('string');
    expect(done.finished_at).to.be.a('string');
    expect(agent.deliveries.map((d) => d.id)).to.deep.equal([queued.id]);
    expect(agent.deliveries[0]!.deadline).to.equal(queued.deadline);
    // And the time left, which the agent counts on its own clock (the controller's is manual here).
    expect(agent.deliveries[0]!.ttl_ms).to.equal(10_000);
  });

  it('sends at once to a connected agent; waitForResult resolves; router.facts refreshes the facts', async () => {
    const agent = await h.enrolledAgent();
    const { commands } = h.t.controller.services;
    const command = await commands.enqueue(h.client.id, agent.allocationId!, 'router.facts', {});
    const done = await commands.waitForResult(h.client.id, command.id, 5000);
    expect(done.state).to.equal('DONE');
    expect(done.output).to.deep.equal(SAMPLE_FACTS);
    const { router } = await h.allocation(agent.allocationId!);
    expect(router).to.include({
      serial: SAMPLE_FACTS.serial,
      routeros_version: SAMPLE_FACTS.routeros_version,
    });
  });

  it('resends an unfinished command after a reconnect, and the journal keeps it from running twice', async () => {
    const agent = await h.enrolledAgent();
    agent.withholdResults = true;
    const { body } = await enqueue(agent.allocationId!, { name: 'backup.save', params: { name: 'nightly' } });
    const acked = await eventually(
      () => read(agent.allocationId!, body.data.id),
      (c) => c.state === 'ACKED',
    );
    expect(acked.attempts).to.equal(1);
    await h.goOffline(agent);

    agent.withholdResults = false;
    await agent.connect();
    const done = await final(agent.allocationId!, body.data.id);
    expect(done.state).to.equal('DONE');
    expect(done.attempts).to.equal(2);
    expect(done.output.file_name).to.equal('ticketnet.backup');
    expect(agent.deliveries.map((d) => d.id)).to.deep.equal([body.data.id, body.data.id]);
    expect(agent.executions.get(body.data.id)).to.equal(1);
  });

  it('ignores a result for a command already final, unknown, or of another agent', async () => {
    const agent = await h.enrolledAgent();
    const { body } = await enqueue(agent.allocationId!, { name: 'router.ping' });
    const done = await final(agent.allocationId!, body.data.id);
    expect(done.state).to.equal('DONE');

    const other = await h.enrolledAgent();
    other.withholdResults = true;
    const { body: theirs } = await enqueue(other.allocationId!, { name: 'router.ping' });
    await eventually(
      () => read(other.allocationId!, theirs.data.id),
      (c) => c.state === 'ACKED',
    );

    const link = agent.link!;
    const fault = { code: 'ROUTER_TIMEOUT' as const, message: 'late', retryable: true };
    link.send('result', { id: body.data.id, status: 'FAILED', fault });
    link.send('result', { id: randomUUID(), status: 'DONE', output: { rtt_ms: 1 } });
    link.send('result', { id: theirs.data.id, status: 'FAILED', fault });
    link.send('ping', { t: 9 });
    await link.waitFor('pong', (b) => b.t === 9);
    expect(await read(agent.allocationId!, body.data.id)).to.deep.equal(done);
    expect((await read(other.allocationId!, theirs.data.id)).state).to.equal('ACKED');
  });

  it('expires a command past its deadline through the AGENT_COMMAND_EXPIRY job, and never sends it', async () => {
    const admin = await h.t.admin();
    const agent = await h.enrolledAgent();
    await h.goOffline(agent);
    const { body } = await enqueue(agent.allocationId!, { name: 'router.ping', timeout_seconds: 60 });
    const waiting = h.t.controller.services.commands.waitForResult(h.client.id, body.data.id, 5000);

    h.t.clock.advance(59_000);
    let run = await h.t.request('POST', '/api/v1/admin/jobs/AGENT_COMMAND_EXPIRY/run', {
      token: admin.token,
    });
    expect(run.body.data).to.include({ status: 'OK' });
    expect(run.body.data.result).to.deep.equal({ expired: 0 });
    h.t.clock.advance(1000);
    run = await h.t.request('POST', '/api/v1/admin/jobs/AGENT_COMMAND_EXPIRY/run', { token: admin.token });
    expect(run.body.data.result).to.deep.equal({ expired: 1 });

    const expired = await waiting;
    expect(expired).to.include({ state: 'EXPIRED', finished_at: h.t.clock.now().toISOString(), attempts: 0 });
    const link = await agent.connect();
    link.send('result', { id: body.data.id, status: 'DONE', output: { rtt_ms: 1 } });
    link.send('ping', { t: 3 });
    await link.waitFor('pong');
    expect(agent.deliveries).to.deep.equal([]);
    expect(await read(agent.allocationId!, body.data.id)).to.deep.equal(expired);
  });

  it('keeps the fault of a FAILED command as data', async () => {
    const agent = await h.enrolledAgent();
    agent.execute = () => ({
      status: 'FAILED',
      fault: { code: 'ROUTER_TRAP', message: 'failure: already have user with this name', retryable: false },
    });
    const { body } = await enqueue(agent.allocationId!, { name: 'hotspot.users.export', params: {} });
    const failed = await final(agent.allocationId!, body.data.id);
    expect(failed.state).to.equal('FAILED');
    expect(failed.fault).to.deep.equal({
      code: 'ROUTER_TRAP',
      message: 'failure: already have user with this name',
      retryable: false,
    });
  });

  it('turns a DONE whose output does not match the catalogue into FAILED AGENT_ERROR', async () => {
    const agent = await h.enrolledAgent();
    agent.execute = () => ({ status: 'DONE', output: { users: [{ name: 'x' }], count: 3 } });
    const { body } = await enqueue(agent.allocationId!, { name: 'hotspot.users.export' });
    const failed = await final(agent.allocationId!, body.data.id);
    expect(failed.state).to.equal('FAILED');
    expect(failed.fault.code).to.equal('AGENT_ERROR');
    expect(failed.output).to.equal(null);
  });

  it('refuses commands outside the catalogue, bad params and bad timeouts, storing nothing', async () => {
    const { allocation } = await h.allocate();
    const cases: [unknown, number, string][] = [
      [{ name: 'system.reboot' }, 400, 'UNKNOWN_COMMAND'],
      [{ name: 'toString' }, 400, 'UNKNOWN_COMMAND'],
      [{ name: 'backup.save', params: { name: '../etc/passwd' } }, 400, 'VALIDATION_ERROR'],
      [{ name: 'router.ping', params: { extra: 1 } }, 400, 'VALIDATION_ERROR'],
      [{ name: 'router.ping', params: [] }, 400, 'VALIDATION_ERROR'],
      [{ name: 'router.ping', timeout_seconds: 0 }, 400, 'VALIDATION_ERROR'],
      [{ name: 'router.ping', timeout_seconds: 1.5 }, 400, 'VALIDATION_ERROR'],
      [{}, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const res = await enqueue(allocation.id, body);
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(res.body.error.code, JSON.stringify(body)).to.equal(code);
    }
    const unknown = await enqueue('00000000-0000-4000-8000-000000000000', { name: 'router.ping' });
    expect(unknown.status).to.equal(404);
    const tech = await h.t.account('technician');
    expect((await enqueue(allocation.id, { name: 'router.ping' }, tech.token)).status).to.equal(403);
    expect((await enqueue(allocation.id, { name: 'router.ping' }, '')).status).to.equal(401);
    const stored = await h.t.db.db.selectFrom('agent_commands').select('id').execute();
    expect(stored).to.deep.equal([]);
  });

  it('answers waitForResult with the current state when the wait is over first', async () => {
    const { allocation } = await h.allocate();
    const { commands } = h.t.controller.services;
    const command = await commands.enqueue(h.client.id, allocation.id, 'router.ping', {});
    const waited = await commands.waitForResult(h.client.id, command.id, 100);
    expect(waited.state).to.equal('QUEUED');
  });

  it('delivers queued commands in order, each once, to a newly enrolled agent', async () => {
    const { allocation, enrolment } = await h.allocate();
    const ids: string[] = [];
    for (const name of ['router.facts', 'router.ping', 'hotspot.users.export']) {
      ids.push((await enqueue(allocation.id, { name })).body.data.id);
      h.t.clock.advance(1);
    }
    const agent = new FakeAgent(h.agentUrl);
    await agent.enrol(enrolment.code);
    for (const id of ids) expect((await final(allocation.id, id)).state).to.equal('DONE');
    expect(agent.deliveries.map((d) => d.id)).to.deep.equal(ids);
  });
});
