// The composition root: builds every service from the config and wires the HTTP app.
// Entry points (main.ts, cli.ts) and tests call createController; nothing else constructs services.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { ManualClock, systemClock, type Clock } from './core/clock.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { Api } from './http/api.js';
import { errorMiddleware } from './http/error-middleware.js';
import { buildOpenApi } from './http/openapi.js';
import { RateLimiter, ipQuota } from './http/rate-limiter.js';
import { requestLogger } from './http/request-logger.js';
import { Scheduler } from './jobs/scheduler.js';
import { JwtIssuer } from './modules/accounts/jwt.js';
import { accountsRoutes } from './modules/accounts/routes.js';
import { AccountsService } from './modules/accounts/service.js';
import { adminRoutes } from './modules/admin/routes.js';
import { healthRoutes } from './modules/health/routes.js';
import { licencesRoutes } from './modules/licences/routes.js';
import { LicencesService } from './modules/licences/service.js';
import { loadOrCreateSecret } from './secrets.js';
import { VERSION } from './version.js';

export interface ControllerOptions {
  config: Config;
  logger: Logger;
  /** Tests inject a clock or an already-open database (e.g. a fresh PostgreSQL schema). */
  clock?: Clock;
  database?: DatabaseHandle;
}

export interface Services {
  accounts: AccountsService;
  licences: LicencesService;
  scheduler: Scheduler;
}

export class Controller {
  #server: Server | undefined;

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
    const server = createServer(this.handler);
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.port, this.config.host, () => resolve());
    });
    if (this.config.scheduler) this.services.scheduler.start(this.config.schedulerTickMs);
    return server.address() as AddressInfo;
  }

  get server(): Server | undefined {
    return this.#server;
  }

  /** Stops accepting, lets in-flight requests finish (up to the shutdown timeout), then closes the database. */
  async close(): Promise<void> {
    await this.services.scheduler.stop();
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
  await migrateToLatest(database.db);

  const jwtSecret = config.jwtSecret ?? loadOrCreateSecret(config.dataDir, 'jwt-secret');
  const accounts = new AccountsService(
    database.db,
    clock,
    new JwtIssuer(jwtSecret, config.jwtTtlDays, clock),
  );
  const licences = new LicencesService(database.db, clock, accounts);
  const scheduler = new Scheduler(database.db, clock, config.instanceId, logger);
  const services: Services = { accounts, licences, scheduler };

  const router = new Router();
  const api = new Api(router, [accounts.authenticate]);
  healthRoutes(api, { db: database.db, version: VERSION });
  accountsRoutes(api, accounts);
  licencesRoutes(api, licences);
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
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: config.bodyLimit, encoding: 'utf-8' }));
  app.use(router.routes());
  app.use(router.allowedMethods());

  return new Controller(app, api, services, database, clock, config, logger);
}
