// A controller listening on a port with a client licensed for RADIUS, and that client's sites: a
// RouterOS simulator with the real agent runtime enrolled on a new allocation, all on loopback over
// real sockets. The controller runs on the system clock unless a test gives it another one.
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { AgentLogger } from '../../agent/logger.js';
import type { RunningAgent } from '../../agent/runtime/agent-runtime.js';
import type { Config } from '../../controller/config.js';
import { createController } from '../../controller/controller.js';
import { systemClock, type Clock, ManualClock } from '../../controller/core/clock.js';
import { RouterSim } from '../routeros-sim/router-sim.js';
import type { WanLinkProfile } from '../routeros-sim/wan-link.js';
import { eventually } from '../integration/hub/hub-fixture.js';
import type { TestDatabase } from './databases.js';
import { startLoopbackAgent, type LoopbackAgentOptions } from './loopback-agent.js';
import { TestController, testConfig, type TestResponse } from './test-controller.js';

/**
 * Waits until the agent running in `stateDir` has saved its identity: it is written once the
 * welcome is in, and a restart before that would enrol again.
 */
export function agentIdentitySaved(stateDir: string, timeoutMs: number): Promise<boolean> {
  return eventually(
    () =>
      access(join(stateDir, 'identity.json')).then(
        () => true,
        () => false,
      ),
    (saved) => saved,
    timeoutMs,
  );
}

export const SIM_PASSWORD = 'sim-pass';

export interface LiveStackOptions {
  config?: Partial<Record<keyof Config, unknown>>;
  /** The controller's clock: the system clock by default. */
  clock?: Clock;
  logger?: Logger;
  /** Shorter equipment relay timers (a device that does not answer, a kept connection closing). */
  equipment?: { relayTimeoutMs?: number; relayKeepIdleMs?: number; webAccessIdleMs?: number };
}

export interface LiveSiteOptions {
  serial: string;
  /** RouterOS version of the simulator (default 7.19). */
  version?: string;
  identity?: string;
  /** Loopback address of the simulated router (default 127.0.0.1): routers of one test on distinct hosts. */
  host?: string;
  relay?: LoopbackAgentOptions['relay'];
  /** UDP port the simulator's `/radius incoming` listens on (give the agent the same as `relay.coaPort`). */
  radiusIncomingPort?: number;
  agentLogger?: AgentLogger;
  /** Waited for on the allocation besides a connected link and the router's serial. */
  ready?: (allocation: Record<string, unknown>) => boolean;
  /** The simulator's Internet link (a satellite dish: SATELLITE_LINK). */
  wanLink?: WanLinkProfile;
  /** The agent's clock (the system's by default). */
  agentNow?: () => Date;
  /**
   * Restart the agent once enrolled, so its link opens with a hello as `ticketnet-agent run` after
   * `enrol` does: the features it names there (`features`) are then in effect (an enrol names none).
   */
  hello?: boolean;
  /** The link features the agent names in its hello (default this build's: an older agent's). */
  features?: readonly string[];
  /** Where the agent reaches the controller (default the controller's own address): a relay a test can cut. */
  controllerUrl?: string;
}

export interface LiveSite {
  sim: RouterSim;
  agent: RunningAgent;
  allocationId: string;
  stateDir: string;
}

export interface LiveStack {
  t: TestController;
  baseUrl: string;
  client: { token: string; id: string };
  /** The client's request to `/api/v1/radius…`. */
  radius(method: string, path: string, body?: unknown): Promise<TestResponse>;
  /** The client's view of an allocation. */
  allocation(id: string): Promise<Record<string, unknown> & { router: { serial: string | null } }>;
  /** Starts a simulator and a real agent enrolled on a new allocation, once its link is up and reported. */
  addSite(options: LiveSiteOptions): Promise<LiveSite>;
  /** Lets an automatic takeover end while its agent is there, stops the sites (last first), closes the controller. */
  close(): Promise<void>;
}

export async function startLiveStack(
  database: TestDatabase,
  options: LiveStackOptions = {},
): Promise<LiveStack> {
  const db = await database.open();
  const clock = options.clock ?? systemClock;
  const controller = await createController({
    config: testConfig({ clock: clock === systemClock ? 'system' : 'manual', ...options.config }),
    logger: options.logger ?? pino({ level: 'silent' }),
    clock,
    database: db,
    ...(options.equipment ? { equipment: options.equipment } : {}),
  });
  const t = new TestController(
    controller,
    (clock instanceof ManualClock ? clock : undefined) as ManualClock,
    db,
  );
  const cleanups: (() => Promise<unknown>)[] = [];
  const { port } = await controller.listen();
  const baseUrl = `http://127.0.0.1:${port}`;
  const client = await t.account('client');
  await controller.services.licences.grant(client.id, 'RADIUS_ANNUAL', null);

  const allocation = async (id: string) =>
    (await t.request('GET', `/api/v1/clients/allocations/${id}`, { token: client.token })).body.data;

  return {
    t,
    baseUrl,
    client,
    radius: (method, path, body) =>
      t.request(method, `/api/v1/radius${path}`, { token: client.token, ...(body ? { body } : {}) }),
    allocation,
    async addSite(o) {
      const sim = new RouterSim({
        serial: o.serial,
        version: o.version ?? '7.19',
        ...(o.identity ? { identity: o.identity } : {}),
        ...(o.host ? { host: o.host } : {}),
        ...(o.radiusIncomingPort !== undefined ? { radiusIncomingPort: o.radiusIncomingPort } : {}),
        ...(o.wanLink ? { wanLink: o.wanLink } : {}),
        password: SIM_PASSWORD,
      });
      await sim.start();
      cleanups.push(() => sim.stop());
      const created = await t.request('POST', '/api/v1/clients/allocations', {
        token: client.token,
        body: {},
      });
      const { allocation: allocated, enrolment } = created.body.data;
      const stateDir = await mkdtemp(join(tmpdir(), 'tn-live-site-'));
      cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
      const start = () =>
        startLoopbackAgent({
          stateDir,
          controllerUrl: o.controllerUrl ?? baseUrl,
          enrolCode: enrolment.code,
          router: { port: sim.port, password: SIM_PASSWORD, ...(o.host ? { host: o.host } : {}) },
          relay: o.relay,
          ...(o.agentLogger ? { logger: o.agentLogger } : {}),
          ...(o.agentNow ? { now: o.agentNow } : {}),
          ...(o.features ? { features: o.features } : {}),
        });
      const ready = () =>
        eventually(
          () => allocation(allocated.id),
          (a) => a.link_state === 'CONNECTED' && a.router.serial === o.serial && (o.ready?.(a) ?? true),
          15_000,
        );
      let agent = await start();
      cleanups.push(() => agent.stop());
      await ready();
      if (o.hello) {
        await agentIdentitySaved(stateDir, 15_000);
        await agent.stop();
        await eventually(
          () => allocation(allocated.id),
          (a) => a.link_state === 'DISCONNECTED',
          15_000,
        );
        agent = await start();
        await ready();
      }
      return { sim, agent, allocationId: allocated.id, stateDir };
    },
    async close() {
      await controller.services.takeover.settled();
      for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
      await t.close();
    },
  };
}
