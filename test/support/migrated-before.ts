import { HISTORY, migratorFor } from '../../controller/db/migrate.js';
import { moduleMigrations } from '../../controller/modules/build-modules.js';
import type { TestDatabase, TestDbHandle } from './databases.js';

/** A fresh database migrated up to the migration before `migration` (what an upgrade starts from). */
export async function openMigratedBefore(database: TestDatabase, migration: string): Promise<TestDbHandle> {
  const handle = await database.open();
  const before = Object.fromEntries(
    Object.entries({ ...HISTORY, ...moduleMigrations() }).filter(([name]) => name < migration),
  );
  const { error } = await (await migratorFor(handle.db, handle.caps, before)).migrateToLatest();
  if (error) throw error;
  return handle;
}
