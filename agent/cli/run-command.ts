// `ticketnet-agent run`: the long-running agent. Stops cleanly on SIGTERM/SIGINT.
import type { RadiusRelaySettings, RouterSettings } from '../config.js';
import { agentLinkUrl } from '../link/controller-url.js';
import type { AgentLogger } from '../logger.js';
import { startAgent } from '../runtime/agent-runtime.js';
import { IdentityStore } from '../state/identity-store.js';
import { StateDir } from '../state/state-dir.js';
import { EXIT } from './cli-io.js';
import type { CliIO } from './cli-io.js';

export interface RunCommandOptions {
  stateDir: string;
  router: RouterSettings;
  logger: AgentLogger;
  /** Controller base URL: to enrol on first start, or to override the saved one. */
  controller?: string | undefined;
  /** Enrolment code, used only while the agent has no identity (container first start). */
  code?: string | undefined;
  /** The RADIUS relay; undefined turns it off. */
  radiusRelay?: RadiusRelaySettings | undefined;
  /** Period of the telemetry report (default 5 minutes). */
  telemetryIntervalMs?: number | undefined;
  /** Network-quality collection: interval and ping targets (defaults: 60 s, two resolvers). */
  qoe?: { intervalMs: number; targets: string[] } | undefined;
  /** Signals that stop the agent (default SIGTERM and SIGINT). */
  signals?: readonly NodeJS.Signals[];
}

export async function runCommand(given: RunCommandOptions, io: CliIO): Promise<number> {
  // An empty environment variable (TICKETNET_ENROL_CODE= in a container recipe) means "not given".
  const options = { ...given, controller: nonEmpty(given.controller), code: nonEmpty(given.code) };
  const { logger } = options;
  if (options.controller !== undefined) {
    try {
      agentLinkUrl(options.controller);
    } catch (err) {
      io.err(`Bad --controller: ${(err as Error).message}`);
      return EXIT.USAGE;
    }
  }
  let enrolled: boolean;
  try {
    enrolled = (await new IdentityStore(new StateDir(options.stateDir).identityFile).load()) !== undefined;
  } catch (err) {
    io.err(`Cannot start: ${(err as Error).message}`);
    return EXIT.FAILED;
  }
  if (!enrolled && (options.code === undefined || options.controller === undefined)) {
    io.err('Not enrolled. Run `ticketnet-agent enrol --controller URL --code CODE` first,');
    io.err('or start with --controller URL --code CODE (TICKETNET_CONTROLLER_URL, TICKETNET_ENROL_CODE).');
    return EXIT.USAGE;
  }
  if (enrolled && options.code !== undefined)
    logger.info({}, 'already enrolled: the enrolment code is ignored');

  // Signal handlers go in before the agent starts: a signal landing during start-up must not take
  // the default (kill) action, it stops the agent as soon as it is up.
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  let stopSignal: NodeJS.Signals | undefined;
  const running: { agent?: Awaited<ReturnType<typeof startAgent>> } = {};
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopSignal !== undefined) return;
    stopSignal = signal;
    logger.info({ signal }, 'stopping');
    void running.agent?.stop();
  };
  for (const signal of signals) process.on(signal, onSignal);

  const agent = await startAgent({
    stateDir: options.stateDir,
    router: options.router,
    logger,
    controllerUrl: options.controller,
    enrolCode: enrolled ? undefined : options.code,
    radiusRelay: options.radiusRelay,
    ...(options.telemetryIntervalMs !== undefined
      ? { reports: { telemetryIntervalMs: options.telemetryIntervalMs } }
      : {}),
    ...(options.qoe ? { qoe: options.qoe } : {}),
  });
  logger.info(
    { state_dir: options.stateDir, router: `${options.router.host}:${options.router.port}` },
    'agent started',
  );
  running.agent = agent;
  if (stopSignal !== undefined) void agent.stop();

  try {
    const finalError = await agent.done;
    await agent.stop();
    if (finalError?.final && stopSignal === undefined) {
      logger.error({ code: finalError.code }, `link refused for good: ${finalError.message}`);
      io.err(
        `Stopped: ${finalError.code}. This agent must be enrolled again (ticketnet-agent enrol --force).`,
      );
      return EXIT.REFUSED;
    }
    if (finalError !== undefined && stopSignal === undefined) {
      io.err(`Stopped: ${finalError.code}: ${finalError.message}`);
      return EXIT.FAILED;
    }
    logger.info({}, 'agent stopped');
    return EXIT.OK;
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
