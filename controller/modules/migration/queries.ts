// The migration module's tables; nothing else reads them.
import type { Db } from '../../db/database.js';
import type { MigrationStatut, RadiusMigrationBackupsTable, RadiusMigrationsTable } from './tables.js';

export const findMigration = (db: Db, allocationId: string) =>
  db.selectFrom('radius_migrations').selectAll().where('allocation_id', '=', allocationId).executeTakeFirst();

/** Creates the router's row on its first run (a concurrent first run finds it made). */
/** Whether a router of the client is mid-migration (running, or armed and awaiting its first authentication). */
export const anyInProgress = async (db: Db, clientId: string): Promise<boolean> =>
  (await db
    .selectFrom('radius_migrations')
    .select('allocation_id')
    .where('client_id', '=', clientId)
    .where('statut', 'in', ['EN_COURS', 'ARMEMENT'])
    .limit(1)
    .executeTakeFirst()) !== undefined;

export const insertMigrationIfNew = (db: Db, row: RadiusMigrationsTable) =>
  db
    .insertInto('radius_migrations')
    .values(row)
    .onConflict((oc) => oc.column('allocation_id').doNothing())
    .execute();

/**
 * Takes the router's run lease when it is free or expired: one conditional UPDATE, so two
 * requests (or two instances) racing for one router cannot both win.
 */
export async function takeLease(
  db: Db,
  allocationId: string,
  token: string,
  until: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('radius_migrations')
    .set({ run_token: token, run_until: until })
    .where('allocation_id', '=', allocationId)
    .where((eb) => eb.or([eb('run_token', 'is', null), eb('run_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function renewLease(db: Db, allocationId: string, token: string, until: string) {
  const result = await db
    .updateTable('radius_migrations')
    .set({ run_until: until })
    .where('allocation_id', '=', allocationId)
    .where('run_token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const releaseLease = (db: Db, allocationId: string, token: string) =>
  db
    .updateTable('radius_migrations')
    .set({ run_token: null, run_until: null })
    .where('allocation_id', '=', allocationId)
    .where('run_token', '=', token)
    .execute();

/** Writes run progress; only while `token` still holds the lease. False when it does not any more. */
export async function updateMigration(
  db: Db,
  allocationId: string,
  token: string,
  changes: Partial<Omit<RadiusMigrationsTable, 'allocation_id' | 'client_id' | 'run_token' | 'run_until'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('radius_migrations')
    .set(changes)
    .where('allocation_id', '=', allocationId)
    .where('run_token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const listByStatut = (db: Db, statut: MigrationStatut) =>
  db.selectFrom('radius_migrations').selectAll().where('statut', '=', statut).execute();

/** Confirms an armed migration once; false when it was confirmed (or returned) meanwhile. */
export async function confirmArmed(
  db: Db,
  allocationId: string,
  changes: Pick<RadiusMigrationsTable, 'confirmed_at' | 'updated_at'>,
): Promise<boolean> {
  const result = await db
    .updateTable('radius_migrations')
    .set({ ...changes, statut: 'CONFIRMEE' })
    .where('allocation_id', '=', allocationId)
    .where('statut', '=', 'ARMEMENT')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const recordFirstAuth = (
  db: Db,
  allocationId: string,
  changes: Pick<RadiusMigrationsTable, 'first_user' | 'first_auth_at' | 'updated_at'>,
) =>
  db
    .updateTable('radius_migrations')
    .set(changes)
    .where('allocation_id', '=', allocationId)
    .where('first_user', 'is', null)
    .execute();

export const insertBackup = (db: Db, row: RadiusMigrationBackupsTable) =>
  db.insertInto('radius_migration_backups').values(row).execute();

export const findBackup = (db: Db, id: string) =>
  db.selectFrom('radius_migration_backups').selectAll().where('id', '=', id).executeTakeFirst();

/** The newest backup of the router that holds accounts (a return's fallback when the row names none). */
export const latestBackupWithAccounts = (db: Db, allocationId: string) =>
  db
    .selectFrom('radius_migration_backups')
    .selectAll()
    .where('allocation_id', '=', allocationId)
    .where('accounts_count', '>', 0)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();

/** Keeps the newest `keep` backups of the router (the newest is the one a return restores). */
export async function pruneBackups(db: Db, allocationId: string, keep: number) {
  const rows = await db
    .selectFrom('radius_migration_backups')
    .select(['id'])
    .where('allocation_id', '=', allocationId)
    .orderBy('created_at', 'desc')
    .execute();
  const doomed = rows.slice(keep).map((r) => r.id);
  if (doomed.length > 0) await db.deleteFrom('radius_migration_backups').where('id', 'in', doomed).execute();
}
