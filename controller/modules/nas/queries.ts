// Every statement of the NAS module. Tenant-scoped (client_id first), except the two RADIUS
// directory reads, which are how a packet's tenant is found in the first place (as the agent's
// signature is for the hub).
import type { Db } from '../../db/database.js';
import type { NasDeploymentsTable, NasRole, NasTable } from './tables.js';

export const findLive = (db: Db, clientId: string, id: string) =>
  db
    .selectFrom('nas')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('status', '<>', 'DELETED')
    .executeTakeFirst();

/** The live NAS among `ids` (any client: the caller checks each one's tenant). */
export const findLiveMany = (db: Db, ids: readonly string[]) =>
  db.selectFrom('nas').selectAll().where('id', 'in', ids).where('status', '<>', 'DELETED').execute();

export const findLiveForAllocation = (db: Db, clientId: string, allocationId: string) =>
  db
    .selectFrom('nas')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .where('status', '<>', 'DELETED')
    .executeTakeFirst();

/** PENDING and ACTIVE NAS of a client, oldest first. */
export const listLive = (db: Db, clientId: string) =>
  db
    .selectFrom('nas')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('status', '<>', 'DELETED')
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** The client's live PRIMARY (at most one: the `nas_one_primary` index). */
export const findPrimary = (db: Db, clientId: string) =>
  db
    .selectFrom('nas')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('role', '=', 'PRIMARY')
    .where('status', '<>', 'DELETED')
    .executeTakeFirst();

export const activeMemberIds = async (db: Db, clientId: string): Promise<string[]> =>
  (
    await db
      .selectFrom('nas')
      .select('id')
      .where('client_id', '=', clientId)
      .where('status', '=', 'ACTIVE')
      .where('role', '=', 'MEMBER')
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((r) => r.id);

/**
 * Locks the client's live NAS rows (PostgreSQL), in id order so two writers never deadlock:
 * promotions, activations and deletions of one client then run one after another.
 */
export const lockClientRows = (db: Db, clientId: string) =>
  db
    .selectFrom('nas')
    .select('id')
    .where('client_id', '=', clientId)
    .where('status', '<>', 'DELETED')
    .orderBy('id')
    .forUpdate()
    .execute();

/** Inserts unless a unique index refuses it (second PRIMARY, second NAS of the router). */
export const insertNas = (db: Db, row: NasTable) =>
  db
    .insertInto('nas')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();

export const setNasname = (db: Db, clientId: string, id: string, nasname: string, now: string) =>
  db
    .updateTable('nas')
    .set({ nasname, updated_at: now })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('status', '<>', 'DELETED')
    .execute();

export const setRole = (db: Db, clientId: string, id: string, role: NasRole, now: string) =>
  db
    .updateTable('nas')
    .set({ role, updated_at: now })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('status', '<>', 'DELETED')
    .execute();

export const markActive = (db: Db, clientId: string, id: string, role: NasRole, now: string) =>
  db
    .updateTable('nas')
    .set({ status: 'ACTIVE', role, activated_at: now, updated_at: now })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .execute();

export const markVerified = (db: Db, clientId: string, id: string, now: string) =>
  db
    .updateTable('nas')
    .set({ verified_at: now, updated_at: now })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('status', '<>', 'DELETED')
    .execute();

/** Soft delete; with `onlyPending`, a NAS activated meanwhile is left alone (a rollback). */
export async function softDelete(
  db: Db,
  clientId: string,
  id: string,
  now: string,
  onlyPending = false,
): Promise<boolean> {
  const result = await db
    .updateTable('nas')
    .set({ status: 'DELETED', deleted_at: now, updated_at: now })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('status', 'in', onlyPending ? ['PENDING'] : ['PENDING', 'ACTIVE'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

// ---- RADIUS directory ----------------------------------------------------------------------

const DIRECTORY_COLUMNS = ['id', 'client_id', 'secret', 'allocation_id'] as const;

export const lookupByNasname = (db: Db, nasname: string) =>
  db
    .selectFrom('nas')
    .select(DIRECTORY_COLUMNS)
    .where('nasname', '=', nasname)
    .where('status', '<>', 'DELETED')
    .executeTakeFirst();

export const lookupByAllocation = (db: Db, allocationId: string) =>
  db
    .selectFrom('nas')
    .select(DIRECTORY_COLUMNS)
    .where('allocation_id', '=', allocationId)
    .where('status', '<>', 'DELETED')
    .executeTakeFirst();

// ---- deployment lock -----------------------------------------------------------------------

/**
 * Takes the router's deployment lock: inserts the row, or takes over a row whose expiry has
 * passed, in one statement. Answers the row when this call holds the lock (on a takeover, with
 * the cancelled deployment's NAS), undefined while another deployment holds it.
 */
export const acquireLock = (db: Db, row: NasDeploymentsTable, now: string) =>
  db
    .insertInto('nas_deployments')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('allocation_id')
        .doUpdateSet({
          token: row.token,
          client_id: row.client_id,
          status: 'DEPLOYING',
          started_at: row.started_at,
          expires_at: row.expires_at,
        })
        .where('nas_deployments.expires_at', '<=', now),
    )
    .returningAll()
    .executeTakeFirst();

export const setLockNas = (db: Db, allocationId: string, token: string, nasId: string, created: boolean) =>
  db
    .updateTable('nas_deployments')
    .set({ nas_id: nasId, nas_created: created ? 1 : 0 })
    .where('allocation_id', '=', allocationId)
    .where('token', '=', token)
    .execute();

export const findLock = (db: Db, clientId: string, allocationId: string) =>
  db
    .selectFrom('nas_deployments')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .executeTakeFirst();

/** True when the holder `token` still had the lock and has now released it. */
export async function releaseLock(db: Db, allocationId: string, token: string): Promise<boolean> {
  const result = await db
    .deleteFrom('nas_deployments')
    .where('allocation_id', '=', allocationId)
    .where('token', '=', token)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export const expiredLocks = (db: Db, now: string) =>
  db.selectFrom('nas_deployments').selectAll().where('expires_at', '<=', now).limit(1000).execute();
