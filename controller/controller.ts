// The composition root: builds every service from the config and wires the HTTP app.
// Entry points (main.ts, cli.ts) and tests call createController; nothing else constructs services.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { defaultPublicUrl, type Config } from './config.js';
import type { Logger } from './logger.js';
import { ManualClock, systemClock, type Clock } from './core/clock.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import {
  AgentHub,
  type AgentHubOptions,
  LocalCommandSignals,
  CommandService,
  loadControllerIdentity,
} from './hub/index.js';
import { Api } from './http/api.js';
import { errorMiddleware } from './http/error-middleware.js';
import { buildOpenApi } from './http/openapi.js';
import { RateLimiter, ipQuota } from './http/rate-limiter.js';
import { requestLogger } from './http/request-logger.js';
import { Scheduler } from './jobs/scheduler.js';
import { JwtIssuer, accountsRoutes, AccountsService } from './modules/accounts/index.js';
import { adminRoutes } from './modules/admin/index.js';
import { allocationsRoutes, AllocationsService } from './modules/allocations/index.js';
import { healthRoutes } from './modules/health/index.js';
import { licencesRoutes, LicencesService } from './modules/licences/index.js';
import {
  ProfilesService,
  RouterImportService,
  TicketAuthService,
  ticketsRoutes,
  TicketsService,
} from './modules/tickets/index.js';
import { resellersRoutes, ResellersService } from './modules/resellers/index.js';
import { takeoverRoutes, TakeoverService } from './modules/takeover/index.js';
import { salesRoutes, SalesService } from './modules/sales/index.js';
import { nasEnrolBodyGuard, DbNasDirectory, nasRoutes, NasService } from './modules/nas/index.js';
import {
  affluenceReportJob,
  topologyRadiusRouters,
  affluenceRoutes,
  AffluenceService,
} from './modules/affluence/index.js';
import {
  MigrationService,
  migrationRoutes,
  DEFAULT_MIGRATION_OPTIONS,
  type MigrationOptions,
} from './modules/migration/index.js';
import {
  type HttpClient,
  PremiereAuthNotifier,
  PushDispatcher,
  type PushSender,
  createPushSender,
  topologyRouterNames,
  notificationsRoutes,
  NotificationsService,
} from './modules/notifications/index.js';
import {
  agentRadiusRelay,
  type NasDirectory,
  RadiusService,
  type RadiusServiceOptions,
  type RadiusAddresses,
} from './radius/index.js';
import { loadOrCreateSecret } from './secrets.js';
import { VERSION } from './version.js';

export interface ControllerOptions {
  config: Config;
  logger: Logger;
  /** Tests inject a clock or an already-open database (e.g. a fresh PostgreSQL schema). */
  clock?: Clock;
  database?: DatabaseHandle;
  /** Tests shorten the hub's timers (handshake timeout, heartbeat, sweep). */
  hub?: Partial<Omit<AgentHubOptions, 'instanceId'>>;
  /** Where RADIUS finds each NAS and its secret: the NAS table unless a test or bench injects one. */
  nasDirectory?: NasDirectory;
  /** Tests and benchmarks tune the RADIUS group commit and retransmit window. */
  radius?: Partial<Omit<RadiusServiceOptions, 'interimSeconds'>>;
  /** Tests shorten the run lease and the agent command waits; the flags always come from the config. */
  migration?: Partial<Omit<MigrationOptions, 'watchEnabled' | 'autoConfirm'>>;
  /** Tests replace the push sender, or the HTTP client under the FCM sender (never the network). */
  pushSender?: PushSender;
  httpClient?: HttpClient;
}

export interface Services {
  accounts: AccountsService;
  licences: LicencesService;
  scheduler: Scheduler;
  allocations: AllocationsService;
  commands: CommandService;
  hub: AgentHub;
  tickets: TicketsService;
  profiles: ProfilesService;
  ticketImport: RouterImportService;
  resellers: ResellersService;
  takeover: TakeoverService;
  sales: SalesService;
  radius: RadiusService;
  nas: NasService;
  notifications: NotificationsService;
  premiere: PremiereAuthNotifier;
  affluence: AffluenceService;
  migration: MigrationService;
}

export class Controller {
  #server: Server | undefined;
  /** The port actually bound (the config may say 0); read by the default public URL. */
  boundPort: number | undefined;

  constructor(
    readonly app: Koa,
    readonly api: Api,
    readonly services: Services,
    readonly database: DatabaseHandle,
    readonly clock: Clock,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** The request handler, for tests that inject requests without opening a port. */
  get handler() {
    return this.app.callback();
  }

  async listen(): Promise<AddressInfo> {
    // RADIUS first: a port already taken stops the start before anything else listens.
    if (this.config.radiusEnabled) {
      await this.services.radius.listen({
        host: this.config.radiusHost,
        authPort: this.config.radiusAuthPort,
        acctPort: this.config.radiusAcctPort,
      });
    }
    const server = createServer(this.handler);
    this.#server = server;
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (this.services.hub.handleUpgrade(req, socket, head)) return;
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.port, this.config.host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    this.boundPort = address.port;
    this.services.hub.start();
    if (this.config.scheduler) this.services.scheduler.start(this.config.schedulerTickMs);
    return address;
  }

  get server(): Server | undefined {
    return this.#server;
  }

  /** The RADIUS UDP addresses bound by listen(), when RADIUS is enabled. */
  get radiusAddresses(): RadiusAddresses | null {
    return this.services.radius.addresses;
  }

  /** Stops accepting, lets in-flight requests finish (up to the shutdown timeout), then closes the database. */
  async close(): Promise<void> {
    await this.services.scheduler.stop();
    // RADIUS stops reading and commits its queued bookkeeping while the database is still open.
    await this.services.radius.close();
    // The first-connection notifications queued by the last authentications, database still open.
    await this.services.premiere.close();
    // Agents first: they are told SHUTTING_DOWN and their links are marked before the database closes.
    await this.services.hub.close();
    const server = this.#server;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), this.config.shutdownTimeoutMs);
      await closed;
      clearTimeout(timer);
    }
    await this.database.close();
    this.logger.info('controller stopped');
  }
}

export async function createController(options: ControllerOptions): Promise<Controller> {
  const { config, logger } = options;
  const clock = options.clock ?? (config.clock === 'manual' ? new ManualClock() : systemClock);
  const database = options.database ?? (await openDatabase(config.db));
  await migrateToLatest(database.db, database.caps);

  const jwtSecret = config.jwtSecret ?? loadOrCreateSecret(config.dataDir, 'jwt-secret');
  const accounts = new AccountsService(
    database.db,
    clock,
    new JwtIssuer(jwtSecret, config.jwtTtlDays, clock),
  );
  const licences = new LicencesService(database.db, clock, accounts);
  const scheduler = new Scheduler(database.db, clock, config.instanceId, logger);

  const hubOptions: AgentHubOptions = { ...options.hub, instanceId: config.instanceId };
  const allocations = new AllocationsService(database.db, clock, logger, {
    publicUrl: () => config.publicUrl ?? defaultPublicUrl(config.host, controller.boundPort ?? config.port),
    // Three missed heartbeats: the instance holding the link has stopped refreshing it.
    linkStaleMs: 3 * (hubOptions.heartbeatMs ?? 30_000),
  });
  const signals = new LocalCommandSignals();
  const commands = new CommandService(database.db, clock, signals, allocations, logger);
  const hub = new AgentHub(
    {
      db: database.db,
      clock,
      logger,
      identity: await loadControllerIdentity(config.dataDir),
      allocations,
      commands,
      signals,
      // Built below (RADIUS needs the tickets service); frames only arrive once listening.
      radiusRelay: (allocationId, clientId, frame) => relayRadius(allocationId, clientId, frame),
    },
    hubOptions,
  );
  scheduler.register({
    name: 'AGENT_COMMAND_EXPIRY',
    cadence: { everyMs: 30_000 },
    run: (now) => commands.expireOverdue(now),
  });
  const tickets = new TicketsService(database.db, database.caps, clock);
  const profiles = new ProfilesService(database.db, database.caps, clock);
  const ticketImport = new RouterImportService(database.db, database.caps, clock, profiles);
  const nasDirectory = new DbNasDirectory(database.db);
  const radius = new RadiusService(
    {
      db: database.db,
      clock,
      logger,
      tickets: new TicketAuthService(database.db),
      nas: options.nasDirectory ?? nasDirectory,
    },
    { ...options.radius, interimSeconds: config.radiusInterimSeconds },
  );
  scheduler.register(radius.staleSessionsJob());
  const relayRadius = agentRadiusRelay({
    handle: (kind, msg, source, nas) => radius.handle(kind, msg, source, nas),
    forAllocation: (allocationId) => nasDirectory.forAllocation(allocationId),
    logger,
  });
  const resellers = new ResellersService(database.db, database.caps, clock, tickets, profiles);
  // Both read the router through its agent (never a transaction open while they wait).
  const takeover = new TakeoverService(database.db, clock, resellers, { allocations, commands });
  const sales = new SalesService(database.db, database.caps, clock, { allocations, commands });
  const nas = new NasService({
    db: database.db,
    caps: database.caps,
    clock,
    logger,
    allocations,
    commands,
    profiles,
    sessions: radius,
    directory: nasDirectory,
    target: {
      address: config.radiusRelayAddress,
      authPort: config.radiusRelayAuthPort,
      acctPort: config.radiusRelayAcctPort,
      interimSeconds: config.radiusInterimSeconds,
    },
    bridgeTimeoutMs: config.nasBridgeTimeoutMs,
  });
  scheduler.register(nas.deploymentSweepJob());
  const notifications = new NotificationsService(database.db, clock);
  const pushSender =
    options.pushSender ??
    (await createPushSender({
      fcmServiceAccount: config.fcmServiceAccount,
      fcmProjectId: config.fcmProjectId,
      clock,
      logger,
      devices: notifications,
      http: options.httpClient,
    }));
  scheduler.register(new PushDispatcher(database.db, clock, pushSender, logger).job());
  const premiere = new PremiereAuthNotifier({ notifications, names: topologyRouterNames(nas), logger });
  radius.onAccepted(premiere.listener);
  const affluence = new AffluenceService(clock, radius.authLog, topologyRadiusRouters(nas));
  scheduler.register(
    affluenceReportJob({
      affluence,
      notifications,
      logger,
      enabled: () => config.radiusAffluenceReportEnabled,
    }),
  );
  const migration = new MigrationService({
    db: database.db,
    clock,
    logger,
    allocations,
    commands,
    licences,
    tickets,
    profiles,
    ticketImport,
    nas,
    radius,
    notifications,
    options: {
      ...DEFAULT_MIGRATION_OPTIONS,
      leaseMs: config.migrationLeaseMs,
      ...options.migration,
      watchEnabled: () => config.radiusMigrationWatchEnabled,
      autoConfirm: () => config.radiusReadyAutoConfirmEnabled,
    },
  });
  scheduler.register(migration.watchJob());
  const services: Services = {
    accounts,
    licences,
    scheduler,
    allocations,
    commands,
    hub,
    tickets,
    profiles,
    ticketImport,
    resellers,
    takeover,
    sales,
    radius,
    nas,
    notifications,
    premiere,
    affluence,
    migration,
  };

  const router = new Router();
  const api = new Api(router, [accounts.authenticate, resellers.authenticate]);
  healthRoutes(api, { db: database.db, version: VERSION });
  accountsRoutes(api, accounts);
  licencesRoutes(api, licences);
  allocationsRoutes(api, allocations, commands);
  ticketsRoutes(api, { tickets, profiles, licences });
  resellersRoutes(api, { resellers, licences });
  takeoverRoutes(api, { takeover, licences });
  salesRoutes(api, { sales, licences });
  nasRoutes(api, { nas, licences });
  notificationsRoutes(api, notifications);
  affluenceRoutes(api, affluence);
  migrationRoutes(api, migration);
  adminRoutes(api, { clock, scheduler, jobRunRoute: config.jobRunRoute });
  api.route(
    {
      method: 'get',
      path: '/api/openapi.json',
      summary: 'This API description',
      tags: ['meta'],
      auth: 'public',
    },
    async () => buildOpenApi(api, VERSION),
  );
  await scheduler.init();

  const app = new Koa({ proxy: config.trustProxy });
  app.silent = true;
  // The request logger wraps everything so it records the status the error middleware settled on.
  app.use(requestLogger(logger));
  app.use(errorMiddleware(logger));
  if (config.apiQuota) app.use(ipQuota(new RateLimiter(config.apiQuota, clock)));
  app.use(nasEnrolBodyGuard());
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: config.bodyLimit, encoding: 'utf-8' }));
  app.use(router.routes());
  app.use(router.allowedMethods());

  // Declared last; the public URL closure above reads it only once requests arrive.
  const controller = new Controller(app, api, services, database, clock, config, logger);
  return controller;
}
