// Job leases: one row per job. Taking a lease is one conditional UPDATE, atomic on both
// dialects, so two controller instances can never both believe they own a job.
import type { Db } from '../db/database.js';

export async function ensureLeaseRow(db: Db, name: string, nextRunAt: string): Promise<void> {
  await db
    .insertInto('job_leases')
    .values({ name, next_run_at: nextRunAt, runs: 0 })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export async function tryAcquire(
  db: Db,
  name: string,
  owner: string,
  now: string,
  leaseUntil: string,
  onlyIfDue: boolean,
): Promise<boolean> {
  let query = db
    .updateTable('job_leases')
    .set({ owner, lease_until: leaseUntil, last_started_at: now })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]));
  if (onlyIfDue) query = query.where('next_run_at', '<=', now);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function release(
  db: Db,
  name: string,
  owner: string,
  outcome: { finishedAt: string; status: 'OK' | 'FAILED'; error: string | null; nextRunAt: string },
): Promise<void> {
  await db
    .updateTable('job_leases')
    .set((eb) => ({
      owner: null,
      lease_until: null,
      last_finished_at: outcome.finishedAt,
      last_status: outcome.status,
      last_error: outcome.error,
      next_run_at: outcome.nextRunAt,
      runs: eb('runs', '+', 1),
    }))
    .where('name', '=', name)
    .where('owner', '=', owner)
    .execute();
}

export const listLeases = (db: Db) => db.selectFrom('job_leases').selectAll().orderBy('name').execute();
