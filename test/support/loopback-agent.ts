// The real agent runtime in the test process, enrolled on a controller and driving a RouterOS
// simulator, both on loopback: quiet logs, fast reconnects, no periodic reports to wait behind.
import type { CommandCatalogue } from '../../agent/commands/command-catalogue.js';
import { SILENT_LOGGER, type AgentLogger } from '../../agent/logger.js';
import { startAgent, type RunningAgent } from '../../agent/runtime/agent-runtime.js';

export interface LoopbackAgentOptions {
  stateDir: string;
  controllerUrl: string;
  enrolCode: string;
  /** The simulator's API port and the password of its `admin` user. */
  router: { port: number; password: string; timeoutMs?: number; host?: string };
  /**
   * The agent's RADIUS relay: UDP ports (0: any) on `host` (default 127.0.0.1), and the router's
   * `/radius incoming` port it sends Disconnect and CoA requests to (default 3799); no relay when absent.
   */
  relay?: { host?: string; authPort: number; acctPort: number; coaPort?: number } | undefined;
  /** Where the agent logs (silent when absent). */
  logger?: AgentLogger;
  /** Replaces the router catalogue (an older build's, without its newer commands). */
  catalogue?: CommandCatalogue;
  /** The agent's clock (the system's by default). */
  now?: () => Date;
  /** The link's compression threshold (Infinity: never compress; default the link's). */
  compressFrom?: number;
  /** The link features the agent names in its hello (default this build's: an older agent's). */
  features?: readonly string[];
}

export function startLoopbackAgent(o: LoopbackAgentOptions): Promise<RunningAgent> {
  return startAgent({
    stateDir: o.stateDir,
    logger: o.logger ?? SILENT_LOGGER,
    controllerUrl: o.controllerUrl,
    enrolCode: o.enrolCode,
    router: {
      host: o.router.host ?? '127.0.0.1',
      port: o.router.port,
      user: 'admin',
      password: o.router.password,
      ftpPort: 21,
      timeoutMs: o.router.timeoutMs ?? 5000,
      connectTimeoutMs: 5000,
    },
    link: {
      backoff: { baseMs: 20, capMs: 200 },
      ...(o.compressFrom !== undefined ? { compressFrom: o.compressFrom } : {}),
    },
    ...(o.relay ? { radiusRelay: { host: '127.0.0.1', ...o.relay, allow: [] } } : {}),
    ...(o.catalogue ? { catalogue: o.catalogue } : {}),
    ...(o.features ? { features: o.features } : {}),
    reports: { telemetryIntervalMs: 3_600_000, factsIntervalMs: 3_600_000, factsMinSpacingMs: 0 },
    // Network-quality points when the test asks (qoe.collect()), with quick pings.
    qoe: { intervalMs: 3_600_000, ping: { count: 5, intervalMs: 20 } },
    ...(o.now ? { now: o.now } : {}),
  });
}
