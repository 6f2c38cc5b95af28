import { Migrator, sql, type MigrationProvider } from 'kysely';
import { HISTORY } from '../../controller/db/migrate.js';
import { moduleMigrations } from '../../controller/modules/build-modules.js';
import type { TestDatabase, TestDbHandle } from './databases.js';

/** A fresh database migrated up to the migration before `migration` (what an upgrade starts from). */
export async function openMigratedBefore(database: TestDatabase, migration: string): Promise<TestDbHandle> {
  const handle = await database.open();
  const before = Object.fromEntries(
    Object.entries({ ...HISTORY, ...moduleMigrations() }).filter(([name]) => name < migration),
  );
  const provider: MigrationProvider = { getMigrations: async () => before };
  const schema = handle.caps.namedSchemas
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db)).rows[0]!.schema
    : undefined;
  const { error } = await new Migrator({
    db: handle.db,
    provider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  }).migrateToLatest();
  if (error) throw error;
  return handle;
}
