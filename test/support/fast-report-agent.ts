// The site agent as a process, with report intervals short enough for an end-to-end test of the
// outbox. `ticketnet-agent run` has no setting for them (telemetry every 5 minutes, facts hourly),
// so this entry starts the same runtime (agent/runtime) that `run` starts, configured from the
// environment `run` reads, plus:
//   TICKETNET_E2E_TELEMETRY_MS   telemetry period (default 250)
//   TICKETNET_E2E_FACTS_MS       facts period (default 1000)
//   TICKETNET_E2E_BACKOFF_CAP_MS largest reconnect wait (default 2000; `run` uses 60 s)
// Logs are the agent's pino lines on stdout; SIGTERM/SIGINT stop it cleanly.
import { routerSettings } from '../../agent/config.js';
import { createLogger } from '../../agent/logger.js';
import { startAgent } from '../../agent/runtime/agent-runtime.js';

const env = process.env;
const ms = (name: string, fallback: number): number => {
  const value = Number(env[name] || fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};

const stateDir = env.TICKETNET_AGENT_STATE_DIR;
if (!stateDir) throw new Error('TICKETNET_AGENT_STATE_DIR is required');
const logger = createLogger();
const agent = await startAgent({
  stateDir,
  router: await routerSettings({}),
  logger,
  controllerUrl: env.TICKETNET_CONTROLLER_URL || undefined,
  enrolCode: env.TICKETNET_ENROL_CODE || undefined,
  reports: {
    telemetryIntervalMs: ms('TICKETNET_E2E_TELEMETRY_MS', 250),
    factsIntervalMs: ms('TICKETNET_E2E_FACTS_MS', 1000),
    factsMinSpacingMs: 0,
  },
  link: { backoff: { baseMs: 200, capMs: ms('TICKETNET_E2E_BACKOFF_CAP_MS', 2000) } },
});
logger.info({ state_dir: stateDir }, 'agent started');

const stop = (): void => void agent.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
const final = await agent.done;
if (final) {
  logger.error({ code: final.code }, final.message);
  process.exit(final.final ? 3 : 1);
}
