// What a module hands the controller: the tables it owns, its migrations, its services, its routes,
// its jobs. The registry (registry.ts) lists every module once; the controller builds them in that
// order. How to write one: docs/adding-a-module.md.
import type { Middleware } from 'koa';
import type { Migration } from 'kysely';
import type { Config } from '../config.js';
import type { Clock } from '../core/clock.js';
import type { SecretBox } from '../core/secret-box.js';
import type { DialectCapabilities } from '../db/capabilities.js';
import type { Db } from '../db/database.js';
import type { DbListen } from '../db/db-listener.js';
import type { Api } from '../http/api.js';
import type { RateLimiter } from '../http/rate-limiter.js';
import type { JobDefinition } from '../jobs/scheduler.js';
import type { Logger } from '../logger.js';
import type { ControllerOptions, Services } from './registry.js';

export interface ModuleContext {
  db: Db;
  caps: DialectCapabilities;
  /** Where `caps.notifiesAcrossInstances`: LISTEN for what other instances announce. */
  listen?: DbListen;
  clock: Clock;
  logger: Logger;
  config: Config;
  /** Seals secrets at rest under the controller's one key; pass a context naming the row. */
  secrets: SecretBox;
  /** What a test injected in place of an external system (push sender, NAS directory…) or a timer. */
  options: ControllerOptions;
  /** The URL agents are told to connect to (known once the controller listens). */
  publicUrl: () => string;
  /**
   * Failed credentials per client address (when a quota is configured): the Api's routes count
   * theirs here, and so must a module's own middleware that checks a bearer.
   */
  credentialFailures?: RateLimiter;
  /**
   * A service of a module listed earlier in the registry: during `build`, asking for one listed
   * later, or for one no module provides, throws at start-up (the list's order is the order of
   * dependencies). A port called only once requests arrive may ask for any (the allocations' link
   * states from the hub, the NAS topology's open sessions from RADIUS).
   */
  use<K extends keyof Services>(name: K): Services[K];
}

export interface ModuleParts<K extends keyof Services> {
  /** Exactly the services the module declared in `provides`. */
  services: Pick<Services, K>;
  /** Registers the module's routes; the shape of every module's `xxxRoutes(api, deps)`. */
  routes?: (api: Api) => void;
  /** Its scheduled jobs, each built by a function of the module's jobs.ts. */
  jobs?: JobDefinition[];
  /** Koa middleware that must run before the JSON body parser (a route with its own body rules). */
  beforeBodyParser?: Middleware[];
}

export interface ControllerModule<K extends keyof Services = keyof Services> {
  /** The module's folder name. */
  name: string;
  /** The tables it owns: a migration must have created each, and no other module may query them. */
  tables: readonly string[];
  /** Its migrations, named `NNNN-what` with a number that is unique across the controller. */
  migrations?: Readonly<Record<string, Migration>>;
  provides: readonly K[];
  build(ctx: ModuleContext): ModuleParts<K> | Promise<ModuleParts<K>>;
}

/** Any module of the list, whatever it provides. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the list holds modules of different K
export type AnyModule = ControllerModule<any>;

/** Declares a module; the type ties what it builds to what it says it provides. */
export function defineModule<const K extends keyof Services>(
  module: ControllerModule<K>,
): ControllerModule<K> {
  return module;
}
