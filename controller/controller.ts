// The composition root: migrates the database, builds the registry's modules in order
// (controller/modules/registry.ts), registers their routes and jobs, and wires the HTTP app.
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
import { SecretBox } from './core/secret-box.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import { Api } from './http/api.js';
import { allowedMethods } from './http/allowed-methods.js';
import { answerClientError } from './http/client-error.js';
import { errorMiddleware } from './http/error-middleware.js';
import { buildOpenApi } from './http/openapi.js';
import { RateLimiter, ipQuota } from './http/rate-limiter.js';
import { requestLogger } from './http/request-logger.js';
import { Scheduler } from './jobs/scheduler.js';
import { buildModules, migrateDatabase } from './modules/build-modules.js';
import type { ControllerOptions, Services } from './modules/registry.js';
import type { RadiusAddresses } from './radius/index.js';
import { loadOrCreateSecret } from './secrets.js';
import { VERSION } from './version.js';

export type { ControllerOptions, Services };

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
    server.on('clientError', answerClientError);
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (this.services.hub.handleUpgrade(req, socket, head)) return;
      if (this.services.realtime.handleUpgrade(req, socket, head)) return;
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A deep accept queue: thousands of websocket clients reconnect at once after a restart
      // (the kernel caps it at net.core.somaxconn).
      server.listen({ port: this.config.port, host: this.config.host, backlog: 4096 }, () => resolve());
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
    // An automatic reseller takeover under way may end while its agent link and the database are
    // still there, for up to the shutdown timeout; one cut short is idempotent and replayable.
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      this.services.takeover.settled(),
      new Promise<void>((resolve) => (waited = setTimeout(resolve, this.config.shutdownTimeoutMs))),
    ]);
    clearTimeout(waited);
    // RADIUS stops reading and commits its queued bookkeeping while the database is still open.
    await this.services.radius.close();
    // The first-connection notifications queued by the last authentications, database still open.
    await this.services.premiere.close();
    // Agents first: they are told SHUTTING_DOWN and their links are marked before the database closes.
    await this.services.hub.close();
    await this.services.realtime.close();
    this.services.equipment.close();
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
  await migrateDatabase(database);

  const scheduler = new Scheduler(database.db, clock, config.instanceId, logger);
  // One key seals every module's secrets at rest; instances on one database share it (README).
  const secrets = SecretBox.fromBase64(
    config.secretsKey ?? loadOrCreateSecret(config.dataDir, 'secrets-key', SecretBox.newKeyText),
  );
  const credentialFailures = config.authFailureQuota
    ? new RateLimiter(config.authFailureQuota, clock)
    : undefined;
  const built = await buildModules(
    {
      ...(credentialFailures ? { credentialFailures } : {}),
      db: database.db,
      caps: database.caps,
      ...(database.listen ? { listen: database.listen } : {}),
      clock,
      logger,
      config,
      secrets,
      options,
      // The controller is declared below; the URL is read only once requests arrive.
      publicUrl: () => config.publicUrl ?? defaultPublicUrl(config.host, controller.boundPort ?? config.port),
    },
    { scheduler },
  );
  const { services } = built;
  for (const job of built.jobs) scheduler.register(job);

  const router = new Router();
  const api = new Api(
    router,
    [services.accounts.authenticate, services.resellers.authenticate],
    (tenantId, product) => services.licences.requireActive(tenantId, product),
    {
      ...(config.moneyQuota
        ? { money: new RateLimiter(config.moneyQuota, clock, 'CLICK_SPAM_PROTECTION') }
        : {}),
      ...(credentialFailures ? { credentials: credentialFailures } : {}),
    },
  );
  built.routes(api);
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
  app.use(requestLogger(logger, router));
  app.use(errorMiddleware(logger));
  if (config.apiQuota) app.use(ipQuota(new RateLimiter(config.apiQuota, clock)));
  for (const middleware of built.beforeBodyParser) app.use(middleware);
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: config.bodyLimit, encoding: 'utf-8' }));
  app.use(router.routes());
  app.use(allowedMethods(router));

  const controller = new Controller(app, api, services, database, clock, config, logger);
  return controller;
}
