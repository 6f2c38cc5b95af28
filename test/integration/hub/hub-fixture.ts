// Shared set-up of the hub tests: a listening controller, a client with an allocation, agents.
import { expect } from 'chai';
import type { Config } from '../../../controller/config.js';
import type { AgentHubOptions } from '../../../controller/hub/agent-hub.js';
import type { TestDatabase } from '../../support/databases.js';
import { FakeAgent, LinkRefusedError } from '../../support/fake-agent.js';
import { pino, type Logger } from 'pino';
import { createController, type ControllerOptions } from '../../../controller/controller.js';
import { ManualClock } from '../../../controller/core/clock.js';
import { START_TIME, TestController, testConfig } from '../../support/test-controller.js';

export interface HubTest {
  t: TestController;
  agentUrl: string;
  client: { token: string; id: string };
  /** Creates an allocation for `token` (the test client's by default); answers the POST body's data. */
  allocate(token?: string, label?: string): Promise<{ allocation: any; enrolment: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** A fake agent enrolled on a fresh allocation of the test client, connected. */
  enrolledAgent(): Promise<FakeAgent>;
  /** The test client's allocation as GET /allocations/:id answers it. */
  allocation(id: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /**
   * Closes the agent's link and waits until the controller has recorded it down, which is what
   * "offline" means to a request (the agent's socket closes before the controller's close handler
   * has run).
   */
  goOffline(agent: FakeAgent): Promise<void>;
}

export async function startHub(
  database: TestDatabase,
  overrides: Partial<Record<keyof Config, unknown>> = {},
  hub: Partial<Omit<AgentHubOptions, 'instanceId'>> = {},
  logger: Logger = pino({ level: 'silent' }),
  extra: Pick<ControllerOptions, 'pushSender'> = {},
): Promise<HubTest> {
  const db = await database.open();
  const clock = new ManualClock(START_TIME);
  const controller = await createController({
    config: testConfig(overrides),
    logger,
    clock,
    database: db,
    hub,
    ...extra,
  });
  const t = new TestController(controller, clock, db);
  const { port } = await t.controller.listen();
  const agentUrl = `ws://127.0.0.1:${port}/agent/v1`;
  const client = await t.account('client');
  const allocate = async (token = client.token, label?: string) => {
    const res = await t.request('POST', '/api/v1/clients/allocations', {
      token,
      body: label === undefined ? {} : { label },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data;
  };
  const allocation = async (id: string) => {
    const res = await t.request('GET', `/api/v1/clients/allocations/${id}`, { token: client.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data;
  };
  return {
    t,
    agentUrl,
    client,
    allocate,
    async enrolledAgent() {
      const { enrolment } = await allocate();
      const agent = new FakeAgent(agentUrl);
      await agent.enrol(enrolment.code);
      return agent;
    },
    allocation,
    async goOffline(agent: FakeAgent) {
      await agent.link!.close();
      await t.linkRecordedDown(agent.allocationId!);
    },
  };
}

/** `n` hotspot users as a router's export lists them (a bulk payload for the link). */
export const hotspotUsers = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: `client${String(i).padStart(5, '0')}`,
    password: `pw-${i}-${(i * 7919) % 10007}`,
    profile: ['1h', '1j', '7j'][i % 3]!,
    comment: `vendu le 2026-01-${10 + (i % 18)}`,
    limit_uptime: 3600 * (1 + (i % 3)),
    disabled: false,
  }));

/** Polls `read` until `accept` holds (real time; the controller's clock is manual). */
export async function eventually<T>(
  read: () => Promise<T>,
  accept: (v: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > giveUp)
      throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Asserts that a handshake is refused with `code`. */
export async function expectRefused(attempt: Promise<unknown>, code: string): Promise<void> {
  const err = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected the link to be refused with ${code}`).to.be.instanceOf(LinkRefusedError);
  expect((err as LinkRefusedError).code).to.equal(code);
}
