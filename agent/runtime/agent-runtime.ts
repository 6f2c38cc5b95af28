// Wires the long-running agent together: state directory, router connection, command executor,
// periodic reports and the link. `ticketnet-agent run` and the integration tests both start it here.
import type { BackoffPolicy } from '../link/backoff.js';
import { AgentLink } from '../link/agent-link.js';
import type { LinkError } from '../link/link-error.js';
import { errorFields, type AgentLogger } from '../logger.js';
import { CATALOGUE_NAMES, routerCatalogue } from '../commands/command-catalogue.js';
import type { CommandCatalogue } from '../commands/command-catalogue.js';
import { CommandExecutor } from '../commands/command-executor.js';
import type { CommandTransport } from '../commands/command-executor.js';
import type { RadiusRelaySettings, RouterSettings } from '../config.js';
import { COA_PORT } from '../radius-relay/coa-forwarder.js';
import { parseIpv4Block } from '../radius-relay/ipv4-cidr.js';
import { RadiusRelay } from '../radius-relay/radius-relay.js';
import { StreamDialer } from '../link/stream-dialer.js';
import { relayAddressAsRouterSeesIt } from '../radius-relay/relay-address.js';
import { readRouterAddresses } from '../radius-relay/router-addresses.js';
import {
  MAC_POLY1305_FEATURE,
  RADIUS_RELAY_FACT,
  STREAM_BYTES_FEATURE,
  STREAM_LARGE_FEATURE,
} from '../../protocol/index.js';
import { RouterConnection } from '../routeros/router-connection.js';
import { readFacts } from '../routeros/router-tasks.js';
import { CommandJournal } from '../state/command-journal.js';
import { IdentityStore } from '../state/identity-store.js';
import { Outbox } from '../state/outbox.js';
import { RouterLoginStore } from '../state/router-login-store.js';
import { StateDir } from '../state/state-dir.js';
import { QoeCollector, type QoeCollectorOptions } from '../telemetry/qoe-collector.js';
import { ReportScheduler } from '../telemetry/report-scheduler.js';
import { AGENT_VERSION } from '../version.js';
import { writeLinkStatus } from './link-status.js';
import type { LinkStatus } from './link-status.js';
import { isoTime } from '../../protocol/index.js';

/**
 * The link features this build names in its hello: it reads a device's bytes raw in `stream_data`,
 * and up to 256 KiB of them in one, and MACs large frames with Poly1305 (docs/agent-link.md).
 */
export const LINK_FEATURES: readonly string[] = [
  STREAM_BYTES_FEATURE,
  STREAM_LARGE_FEATURE,
  MAC_POLY1305_FEATURE,
];

export interface AgentRuntimeOptions {
  stateDir: string;
  router: RouterSettings;
  logger: AgentLogger;
  controllerUrl?: string | undefined;
  enrolCode?: string | undefined;
  /** Replaces the router catalogue (tests count or fake the executions). */
  catalogue?: CommandCatalogue;
  /** Replaces the link features this build names in its hello (tests: an older agent's). */
  features?: readonly string[];
  link?: {
    backoff?: BackoffPolicy;
    random?: () => number;
    stableAfterMs?: number;
    heartbeatMs?: number;
    handshakeTimeoutMs?: number;
    reportBatchSize?: number;
    /** Compress frames to the controller from this size on (Infinity: never; bench:migration). */
    compressFrom?: number;
  };
  reports?: { telemetryIntervalMs?: number; factsIntervalMs?: number; factsMinSpacingMs?: number };
  /** Network-quality points: interval, ping targets and plan (defaults in qoe-collector.ts). */
  qoe?: Pick<QoeCollectorOptions, 'intervalMs' | 'targets' | 'ping'>;
  outboxMaxEntries?: number;
  /** The RADIUS relay (the CLI always gives it unless turned off); absent: no relay. */
  radiusRelay?: (RadiusRelaySettings & { timeoutMs?: number; coaPort?: number }) | undefined;
  journalPruneIntervalMs?: number;
  now?: () => Date;
}

/** A started agent. */
export interface RunningAgent {
  link: AgentLink;
  executor: CommandExecutor;
  outbox: Outbox;
  reports: ReportScheduler;
  /** Network-quality points (collect() takes one now). */
  qoe: QoeCollector;
  router: RouterConnection;
  /** The RADIUS relay, when enabled. */
  radiusRelay: RadiusRelay | undefined;
  /** Stops everything; resolves when the state on disk is settled. */
  stop(): Promise<void>;
  /** Resolves when the link stops for good (a final refusal, or stop()). */
  done: Promise<LinkError | undefined>;
}

export async function startAgent(options: AgentRuntimeOptions): Promise<RunningAgent> {
  const { logger } = options;
  const now = options.now ?? (() => new Date());
  const dir = new StateDir(options.stateDir);
  await dir.ensure();
  const identityStore = new IdentityStore(dir.identityFile);
  const outbox = await Outbox.open(dir.outboxDir, {
    logger,
    ...(options.outboxMaxEntries !== undefined ? { maxEntries: options.outboxMaxEntries } : {}),
  });
  const journal = new CommandJournal(dir.journalDir, logger);
  // A login the controller handed over earlier replaces the one given by flags or environment.
  const loginStore = new RouterLoginStore(dir.routerLoginFile);
  const storedLogin = await loginStore.load();
  const router = new RouterConnection({
    ...options.router,
    ...(storedLogin
      ? { user: storedLogin.user, password: storedLogin.password, port: storedLogin.port }
      : {}),
    logger,
  });

  // The link and the executor need each other. The link is built first; its onCommand closure
  // reaches the executor, which exists before link.start() lets any command in.
  const link: AgentLink = new AgentLink({
    identityStore,
    outbox,
    controllerUrl: options.controllerUrl,
    enrolCode: options.enrolCode,
    agentVersion: AGENT_VERSION,
    // the commands it runs, and the link features it speaks (agent-link.md)
    capabilities: [
      ...(options.catalogue ? Object.keys(options.catalogue) : CATALOGUE_NAMES),
      ...(options.features ?? LINK_FEATURES),
    ],
    // Best effort and quick: enrolment must not wait on a router that is not there.
    enrolFacts: () => withTimeout(readFacts(router, { timeoutMs: 3000 }), 3000),
    onCommand: (command) => void executor.receive(command),
    onRadius: (frame) => radiusRelay?.receive(frame),
    onStream: (message) => streams.receive(message),
    logger,
    now,
    ...options.link,
  });
  const transport = {
    send: (type: 'ack' | 'result', body: never) => link.send(type, body),
  } as CommandTransport;
  // The controller's relay to devices behind the router: TCP to the router's dst-nat ports.
  const streams = new StreamDialer({
    host: options.router.host,
    send: (type, body) => link.send(type, body),
    rawBytes: () => link.session?.welcome.features?.includes(STREAM_BYTES_FEATURE) ?? false,
    largeChunks: () => link.session?.welcome.features?.includes(STREAM_LARGE_FEATURE) ?? false,
    sendBytes: (id, buffer, at, length) => link.sendStreamData(id, buffer, at, length),
    logger,
  });
  link.on('down', () => streams.closeAll());
  link.on('stopped', () => streams.closeAll());
  // Set once the relay has started: a command recovered from the journal may run before that.
  const started: { relay?: RadiusRelay | undefined } = {};
  const executor = new CommandExecutor({
    journal,
    router,
    catalogue: options.catalogue ?? routerCatalogue(logger, { coa: () => started.relay?.coa, loginStore }),
    transport,
    logger,
    ftpPort: options.router.ftpPort,
    now,
  });
  const reports = new ReportScheduler({
    outbox,
    router,
    notify: () => link.notifyOutbox(),
    logger,
    now,
    // Where the router must send RADIUS: the controller writes it in the router's /radius entry.
    extraFacts: () => ({ [RADIUS_RELAY_FACT]: radiusRelay?.report() ?? null }),
    ...options.reports,
  });
  const qoe = new QoeCollector({
    outbox,
    router,
    notify: () => link.notifyOutbox(),
    logger,
    now,
    ...options.qoe,
  });

  let status: LinkStatus = { pid: process.pid, state: 'connecting', since: isoTime(now()) };
  // Writes in order, so an older state never lands after a newer one.
  let statusWrites = Promise.resolve();
  const saveStatus = (patch: Partial<LinkStatus>): void => {
    status = { ...status, ...patch };
    const snapshot = status;
    statusWrites = statusWrites
      .then(() => writeLinkStatus(dir.linkStatusFile, snapshot))
      .catch(() => undefined);
  };
  link.on('ready', () => {
    saveStatus({ state: 'ready', since: isoTime(now()) });
    void radiusRelay?.refreshRouterAddresses();
    reports.onConnected();
    void executor.resendUnsent().catch((err: unknown) => logger.warn(errorFields(err), 'resend failed'));
  });
  link.on('down', (error) =>
    saveStatus({
      state: 'waiting',
      since: isoTime(now()),
      last_error: { code: error.code, message: error.message, at: isoTime(now()) },
    }),
  );
  link.on('stopped', () => saveStatus({ state: 'stopped', since: isoTime(now()) }));

  await journal.prune(now());
  await executor.recover();
  const pruneTimer = setInterval(
    () => void journal.prune(now()).catch((err: unknown) => logger.warn(errorFields(err), 'prune failed')),
    options.journalPruneIntervalMs ?? 60 * 60 * 1000,
  );
  pruneTimer.unref();
  saveStatus({});
  const radiusRelay = await startRadiusRelay(options, link, router, logger);
  started.relay = radiusRelay;
  reports.start();
  qoe.start();
  link.start();

  let stopping: Promise<void> | undefined;
  return {
    link: link,
    executor,
    outbox,
    reports,
    qoe,
    router,
    radiusRelay,
    done: link.done,
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(pruneTimer);
        await reports.stop();
        await qoe.stop();
        // Executor first: an interrupted command is journalled (and its result may still go out).
        await executor.stop();
        await radiusRelay?.stop();
        await link.stop();
        await router.close();
        await statusWrites;
      })()),
  };
}

// A port already taken leaves the agent running without relay (commands and reports still matter);
// the error says which port.
async function startRadiusRelay(
  options: AgentRuntimeOptions,
  link: AgentLink,
  router: RouterConnection,
  logger: AgentLogger,
): Promise<RadiusRelay | undefined> {
  const settings = options.radiusRelay;
  if (!settings) return undefined;
  const routerHost = parseIpv4Block(options.router.host);
  const relay = new RadiusRelay({
    ...settings,
    // No list from the operator: the router's own addresses, so no other host can use the relay.
    allow:
      settings.allow.length > 0
        ? settings.allow
        : { initial: routerHost ? [routerHost] : [], read: () => readRouterAddresses(router) },
    address: await relayAddressAsRouterSeesIt({
      advertise: settings.advertise,
      host: settings.host,
      routerHost: options.router.host,
    }),
    transport: { send: (body) => link.send('radius', body), isUp: () => link.session !== undefined },
    logger,
    coa: { host: options.router.host, port: settings.coaPort ?? COA_PORT, localAddress: settings.host },
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
  });
  try {
    const addresses = await relay.start();
    logger.info(
      {
        auth: addresses.auth?.port,
        acct: addresses.acct?.port,
        host: settings.host,
        routerSendsTo: relay.report()?.address ?? null,
      },
      'radius relay listening',
    );
    return relay;
  } catch (err) {
    logger.error(errorFields(err), 'radius relay not started');
    return undefined;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([work.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}
