// Builds the registry's modules in order and checks what a forgotten step would break: a service
// used before its module is built, one provided twice or not at all, a table no migration created,
// a table no module owns.
import type { Middleware } from 'koa';
import type { Migration } from 'kysely';
import type { DatabaseHandle } from '../db/database.js';
import { INFRASTRUCTURE_TABLES, listTables, migrateToLatest } from '../db/migrate.js';
import type { Api } from '../http/api.js';
import type { JobDefinition } from '../jobs/scheduler.js';
import type { AnyModule, ModuleContext } from './define-module.js';
import { MODULES, type Services } from './registry.js';

export interface BuiltModules {
  services: Services;
  jobs: JobDefinition[];
  beforeBodyParser: Middleware[];
  /** Registers every module's routes (once all services exist). */
  routes(api: Api): void;
}

type BaseContext = Omit<ModuleContext, 'use'>;

export async function buildModules(
  base: BaseContext,
  preset: Pick<Services, 'scheduler'>,
  modules: readonly AnyModule[] = MODULES,
): Promise<BuiltModules> {
  const services: Partial<Services> = { ...preset };
  let building: string | null = null;
  const use = <K extends keyof Services>(name: K): Services[K] => {
    const service = services[name];
    if (service === undefined) {
      throw new Error(
        building
          ? `module ${building} uses ${name}, which no module listed before it provides (controller/modules/registry.ts)`
          : `no module provides ${name}`,
      );
    }
    return service;
  };
  const jobs: JobDefinition[] = [];
  const beforeBodyParser: Middleware[] = [];
  const routes: ((api: Api) => void)[] = [];
  for (const module of modules) {
    building = module.name;
    const parts = await module.build({ ...base, use });
    const built = parts.services as Partial<Services>;
    for (const name of module.provides as readonly (keyof Services)[]) {
      if (services[name] !== undefined) throw new Error(`${name} is provided twice (module ${module.name})`);
      if (built[name] === undefined) throw new Error(`module ${module.name} did not build ${name}`);
      Object.assign(services, { [name]: built[name] });
    }
    jobs.push(...(parts.jobs ?? []));
    beforeBodyParser.push(...(parts.beforeBodyParser ?? []));
    if (parts.routes) routes.push(parts.routes);
  }
  building = null;
  return {
    services: services as Services,
    jobs,
    beforeBodyParser,
    routes: (api) => routes.forEach((register) => register(api)),
  };
}

/** Every module's own migrations, checked for names that collide. */
export function moduleMigrations(modules: readonly AnyModule[] = MODULES): Record<string, Migration> {
  const all: Record<string, Migration> = {};
  for (const module of modules) {
    for (const [name, migration] of Object.entries(module.migrations ?? {})) {
      if (name in all) throw new Error(`migration ${name} is declared twice (module ${module.name})`);
      all[name] = migration;
    }
  }
  return all;
}

/**
 * Compares the tables the modules declare with those the migrations made: a table declared but
 * absent is a forgotten migration; a table present that no module declares has no owner.
 */
export function checkTableOwnership(
  existing: readonly string[],
  infrastructure: readonly string[],
  modules: readonly AnyModule[] = MODULES,
): void {
  const owner = new Map<string, string>(infrastructure.map((t) => [t, 'the controller']));
  for (const module of modules) {
    for (const table of module.tables) {
      const other = owner.get(table);
      if (other) throw new Error(`table ${table} is owned by both ${other} and module ${module.name}`);
      owner.set(table, module.name);
    }
  }
  const present = new Set(existing);
  const missing = [...owner.keys()].filter((t) => !present.has(t));
  if (missing.length > 0) {
    throw new Error(`no migration created ${missing.map((t) => `${t} (${owner.get(t)})`).join(', ')}`);
  }
  const orphans = existing.filter((t) => !owner.has(t));
  if (orphans.length > 0) throw new Error(`no module owns table(s) ${orphans.join(', ')}`);
}

/** Applies the history and every module's migrations, then checks each table has its owner. */
export async function migrateDatabase(handle: Pick<DatabaseHandle, 'db' | 'caps'>): Promise<string[]> {
  const applied = await migrateToLatest(handle.db, handle.caps, moduleMigrations());
  checkTableOwnership(await listTables(handle.db, handle.caps), INFRASTRUCTURE_TABLES);
  return applied;
}
