// Runs the migrations, in name order, under Kysely's migration lock: two controllers starting
// at once on one database apply each migration exactly once. The numbered files here are the
// history; a module added since declares its own migrations (controller/modules/registry.ts).
import { Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { DialectCapabilities } from './capabilities.js';
import type { Db } from './database.js';
import { seedPlannerStatistics } from './planner-statistics.js';
import * as m0001 from './migrations/0001-foundation.js';
import * as m0002 from './migrations/0002-agent-link.js';
import * as m0003 from './migrations/0003-radius.js';
import * as m0004 from './migrations/0004-resellers.js';
import * as m0005 from './migrations/0005-nas.js';
import * as m0006 from './migrations/0006-takeover-sales.js';
import * as m0007 from './migrations/0007-notifications.js';
import * as m0008 from './migrations/0008-ticket-list-order.js';
import * as m0009 from './migrations/0009-ticket-limits.js';
import * as m0010 from './migrations/0010-radius-migration.js';
import * as m0011 from './migrations/0011-ticket-list-covering.js';

/** The history: every migration written before modules declared their own. */
export const HISTORY: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-agent-link': m0002,
  '0003-radius': m0003,
  '0004-resellers': m0004,
  '0005-nas': m0005,
  '0006-takeover-sales': m0006,
  '0007-notifications': m0007,
  '0008-ticket-list-order': m0008,
  '0009-ticket-limits': m0009,
  '0010-radius-migration': m0010,
  '0011-ticket-list-covering': m0011,
};

export class MigrationError extends Error {}

/**
 * Pass the handle's capabilities so that, on PostgreSQL, the migration tables of this schema are
 * used, and on SQLite the planner gets statistics for the tables it has none for.
 */
export async function migrateToLatest(
  db: Db,
  caps?: DialectCapabilities,
  moduleMigrations: Readonly<Record<string, Migration>> = {},
): Promise<string[]> {
  const all: Record<string, Migration> = { ...HISTORY };
  const numbers = new Set(Object.keys(HISTORY).map((name) => name.slice(0, 4)));
  for (const [name, migration] of Object.entries(moduleMigrations)) {
    // One number, one migration: two modules that took the same next number must not both apply.
    if (numbers.has(name.slice(0, 4))) throw new MigrationError(`migration number of ${name} is taken`);
    numbers.add(name.slice(0, 4));
    if (name in all || !/^\d{4}-[a-z0-9-]+$/.test(name))
      throw new MigrationError(`migration name ${name} is taken or malformed`);
    all[name] = migration;
  }
  const migrator = await migratorFor(db, caps, all);
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(`migration ${failed} failed: ${String(result.error)}`, { cause: result.error });
  }
  if (caps?.seedsPlannerStatistics) await seedPlannerStatistics(db);
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Kysely's migrator over `migrations`, on the migration tables of this connection's schema. */
export async function migratorFor(
  db: Db,
  caps: DialectCapabilities | undefined,
  migrations: Readonly<Record<string, Migration>>,
): Promise<Migrator> {
  const provider: MigrationProvider = { getMigrations: async () => ({ ...migrations }) };
  const schema = caps?.namedSchemas ? await currentSchema(db) : undefined;
  return new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
}

// Kysely's migrator looks for its own tables in every schema of a PostgreSQL database unless it is
// told which one: another schema's kysely_migration_lock (a second tenant database, a test run)
// would then pass for ours and the lock query would fail. Name the schema this connection uses.
async function currentSchema(db: Db): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}

/** The tables of this database (this schema on PostgreSQL), without the engine's own. */
export async function listTables(db: Db, caps: DialectCapabilities): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`${sql.raw(caps.listTablesSql)}`.execute(db);
  return rows.map((r) => r.name).sort();
}

/** Tables the controller itself keeps (migration bookkeeping, job leases); modules own the rest. */
export const INFRASTRUCTURE_TABLES = ['kysely_migration', 'kysely_migration_lock', 'job_leases'] as const;
