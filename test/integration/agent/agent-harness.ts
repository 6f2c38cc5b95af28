// Shared set-up for the agent integration tests: temp state directories, a RouterOS simulator,
// and an agent runtime with short timings pointed at a FakeHub.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RouterSettings } from '../../../agent/config.js';
import { createLogger, SILENT_LOGGER } from '../../../agent/logger.js';
import type { AgentLogger } from '../../../agent/logger.js';
import { startAgent } from '../../../agent/runtime/agent-runtime.js';
import type { AgentRuntimeOptions, RunningAgent } from '../../../agent/runtime/agent-runtime.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import type { RouterSimOptions } from '../../routeros-sim/router-sim.js';
import type { FakeHub } from '../../support/fake-hub.js';

export const SIM_PASSWORD = 'sim-pass';

/** Set AGENT_TEST_LOG=debug to see the agent's logs while a test runs. */
export const testLogger: AgentLogger = process.env.AGENT_TEST_LOG
  ? createLogger(process.env.AGENT_TEST_LOG)
  : SILENT_LOGGER;

const cleanups: (() => Promise<unknown>)[] = [];

/** Registers something to undo after the current test (see `cleanUp`). */
export function afterTest(fn: () => Promise<unknown>): void {
  cleanups.push(fn);
}

/** Runs the registered clean-ups, newest first. Call from `afterEach`. */
export async function cleanUp(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
}

export async function tempStateDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ticketnet-agent-'));
  afterTest(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export async function startSim(options: Partial<RouterSimOptions> = {}): Promise<RouterSim> {
  const sim = new RouterSim({ serial: 'A1B2C3D4E5F6', version: '7.19', password: SIM_PASSWORD, ...options });
  await sim.start();
  afterTest(() => sim.stop());
  return sim;
}

/** Router settings for a simulator (or a closed port when none), with short timeouts. */
export function routerSettingsFor(
  sim: RouterSim | undefined,
  overrides: Partial<RouterSettings> = {},
): RouterSettings {
  return {
    host: '127.0.0.1',
    port: sim?.port ?? 1,
    user: 'admin',
    password: SIM_PASSWORD,
    ftpPort: sim?.ftpPort ?? 21,
    timeoutMs: 2000,
    connectTimeoutMs: 2000,
    ...overrides,
  };
}

export interface TestAgentOptions extends Partial<Omit<AgentRuntimeOptions, 'router'>> {
  hub: FakeHub;
  sim?: RouterSim | undefined;
  router?: Partial<RouterSettings>;
  /** Enrol with a fresh code from the hub (when the state directory has no identity). */
  enrol?: boolean;
}

/** Starts an agent runtime with fast backoff and no periodic reports unless asked. */
export async function startTestAgent(
  options: TestAgentOptions,
): Promise<RunningAgent & { stateDir: string }> {
  const { hub, sim, enrol, router, ...rest } = options;
  const stateDir = rest.stateDir ?? (await tempStateDir());
  const agent = await startAgent({
    logger: testLogger,
    controllerUrl: hub.url,
    ...(enrol ? { enrolCode: hub.issueCode() } : {}),
    ...rest,
    stateDir,
    router: routerSettingsFor(sim, router),
    link: { backoff: { baseMs: 20, capMs: 200 }, ...rest.link },
    reports: {
      telemetryIntervalMs: 3_600_000,
      factsIntervalMs: 3_600_000,
      factsMinSpacingMs: 0,
      ...rest.reports,
    },
  });
  afterTest(() => agent.stop());
  return { ...agent, stateDir };
}

/** Polls until `check` is true. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
