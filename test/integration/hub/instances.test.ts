// More than one controller on one database: a restart with commands waiting, and two instances
// where the agent's socket is on one and the command is posted to the other.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { CompiledQuery } from 'kysely';
import sinon from 'sinon';
import { pino } from 'pino';
import { createController } from '../../../controller/controller.js';
import { ManualClock } from '../../../controller/core/clock.js';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';
import { FakeAgent } from '../../support/fake-agent.js';
import { START_TIME, TestController, testConfig } from '../../support/test-controller.js';
import { eventually, expectRefused } from './hub-fixture.js';

interface Instance {
  t: TestController;
  agentUrl: string;
}

forEachDatabase('controller instances', (database) => {
  let main: TestDbHandle;
  let dataDir: string;
  const running: Instance[] = [];

  beforeEach(async () => {
    main = await database.open();
    // Shared, as in production: every instance signs challenges with the same controller key.
    dataDir = mkdtempSync(join(tmpdir(), 'tn-data-'));
  });
  afterEach(async () => {
    for (const i of running.splice(0)) await i.t.close();
    await main.close();
  });

  // Each instance has its own handle onto the one database, so closing it leaves the others be.
  async function start(instanceId: string): Promise<Instance> {
    const controller = await createController({
      config: testConfig({ dataDir, instanceId }),
      logger: pino({ level: 'silent' }),
      clock: new ManualClock(START_TIME),
      database: await main.openAnother(),
      hub: { sweepMs: 50 },
    });
    const { port } = await controller.listen();
    const instance = {
      t: new TestController(controller, controller.clock as ManualClock, main),
      agentUrl: `ws://127.0.0.1:${port}/agent/v1`,
    };
    running.push(instance);
    return instance;
  }

  async function stop(instance: Instance): Promise<void> {
    running.splice(running.indexOf(instance), 1);
    await instance.t.close();
  }

  async function clientWithAgent(instance: Instance) {
    const client = await instance.t.account('client');
    const res = await instance.t.request('POST', '/api/v1/clients/allocations', {
      token: client.token,
      body: {},
    });
    const agent = new FakeAgent(instance.agentUrl);
    await agent.enrol(res.body.data.enrolment.code);
    return { client, agent, allocationId: res.body.data.allocation.id as string };
  }

  const command = (i: Instance, token: string, allocationId: string, id: string) =>
    i.t.request('GET', `/api/v1/clients/allocations/${allocationId}/commands/${id}`, { token });

  it('delivers commands queued before a restart once the agent reconnects to the new instance', async () => {
    const first = await start('instance-1');
    const { client, agent, allocationId } = await clientWithAgent(first);
    await agent.link!.close();
    await first.t.linkRecordedDown(allocationId);
    const ids: string[] = [];
    for (const name of ['router.ping', 'router.facts']) {
      const res = await first.t.request('POST', `/api/v1/clients/allocations/${allocationId}/commands`, {
        token: client.token,
        body: { name },
      });
      ids.push(res.body.data.id);
      // Delivery follows created_at; two commands of the same millisecond have no set order.
      first.t.clock.advance(1);
    }
    await stop(first);

    const second = await start('instance-2');
    agent.url = second.agentUrl;
    // The agent checks the new instance's challenge against the key it pinned at enrolment.
    const link = await agent.connect();
    expect(link.badFrames).to.deep.equal([]);
    for (const id of ids) {
      const done = await eventually(
        async () => (await command(second, client.token, allocationId, id)).body.data,
        (c) => c.state === 'DONE',
      );
      expect(done.attempts).to.equal(1);
    }
    expect(agent.deliveries.map((d) => d.id)).to.deep.equal(ids);
  });

  it('carries a command posted to one instance to the agent connected to another', async () => {
    const a = await start('instance-a');
    const b = await start('instance-b');
    const { client, agent, allocationId } = await clientWithAgent(a);
    const listed = await b.t.request('GET', '/api/v1/clients/allocations', { token: client.token });
    expect(listed.body.data[0]).to.include({ link_state: 'CONNECTED' });

    const posted = await b.t.request('POST', `/api/v1/clients/allocations/${allocationId}/commands`, {
      token: client.token,
      body: { name: 'router.ping' },
    });
    const done = await b.t.controller.services.commands.waitForResult(client.id, posted.body.data.id, 5000);
    expect(done.state).to.equal('DONE');
    expect(agent.deliveries.map((d) => d.id)).to.deep.equal([posted.body.data.id]);
    expect(a.t.controller.services.hub.holds(allocationId)).to.equal(true);
    expect(b.t.controller.services.hub.holds(allocationId)).to.equal(false);
  });

  it('closes a link held by another instance when its allocation is revoked, and the agent is refused after', async () => {
    const a = await start('instance-a');
    const b = await start('instance-b');
    const { client, agent, allocationId } = await clientWithAgent(a);
    const link = agent.link!;
    const res = await b.t.request('POST', `/api/v1/clients/allocations/${allocationId}/revoke`, {
      token: client.token,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // Instance a learns it at its next ownership check (sweep every 50 ms here).
    await link.closed;
    expect(a.t.controller.services.hub.holds(allocationId)).to.equal(false);
    await expectRefused(agent.connect(), 'AGENT_REVOKED');
  });

  it('closes the old link when the agent reconnects to another instance (SESSION_REPLACED)', async () => {
    const a = await start('instance-a');
    const b = await start('instance-b');
    const { client, agent, allocationId } = await clientWithAgent(a);
    const old = agent.link!;
    agent.url = b.agentUrl;
    const moved = await agent.connect();
    await old.closed;
    expect(old.error?.code).to.equal('SESSION_REPLACED');
    expect(a.t.controller.services.hub.holds(allocationId)).to.equal(false);
    const listed = await a.t.request('GET', '/api/v1/clients/allocations', { token: client.token });
    expect(listed.body.data[0]).to.include({ link_state: 'CONNECTED' });
    const posted = await a.t.request('POST', `/api/v1/clients/allocations/${allocationId}/commands`, {
      token: client.token,
      body: { name: 'router.ping' },
    });
    await eventually(
      async () => (await command(b, client.token, allocationId, posted.body.data.id)).body.data,
      (c) => c.state === 'DONE',
    );
    expect(agent.deliveries).to.have.length(1);
    expect(moved.frames.filter((f) => f.type === 'command')).to.have.length(1);
    expect(old.frames.filter((f) => f.type === 'command')).to.have.length(0);
  });
  it("queues the first command to an agent linked here without reading its allocation's owner", async () => {
    // The owner was read with the agent's enrolment (first instance) or its hello (second).
    const allocationsRead = async (instance: Instance, run: () => Promise<unknown>) => {
      const spy = sinon.spy(instance.t.controller.database.db.getExecutor(), 'executeQuery');
      try {
        await run();
        return spy.getCalls().filter((c) => /from "allocations"/.test((c.args[0] as CompiledQuery).sql))
          .length;
      } finally {
        spy.restore();
      }
    };
    const first = await start('instance-1');
    const { client, agent, allocationId } = await clientWithAgent(first);
    const enqueue = (i: Instance) => () =>
      i.t.controller.services.commands.enqueue(client.id, allocationId, 'router.ping', {});
    expect(await allocationsRead(first, enqueue(first))).to.equal(0);
    await agent.link!.close();
    await first.t.linkRecordedDown(allocationId);
    await stop(first);
    const second = await start('instance-2');
    agent.url = second.agentUrl;
    await agent.connect();
    expect(await allocationsRead(second, enqueue(second))).to.equal(0);
    // Whereas an allocation whose agent never linked here is read once.
    const other = await second.t.request('POST', '/api/v1/clients/allocations', {
      token: client.token,
      body: {},
    });
    const otherId = other.body.data.allocation.id as string;
    expect(
      await allocationsRead(second, () =>
        second.t.controller.services.commands.enqueue(client.id, otherId, 'router.ping', {}),
      ),
    ).to.equal(1);
  });
});
