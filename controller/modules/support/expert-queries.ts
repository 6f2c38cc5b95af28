// Statements on experts and expert_tags.
import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { ActivityStatus, ExpertsTable, Tier } from './tables.js';
import { tierRank } from './rules.js';

export async function findExpert(db: Db, id: string): Promise<ExpertsTable | undefined> {
  return db.selectFrom('experts').selectAll().where('account_id', '=', id).executeTakeFirst();
}

export async function insertExpert(db: Db, row: ExpertsTable): Promise<void> {
  await db.insertInto('experts').values(row).execute();
}

export async function updateExpert(db: Db, id: string, set: Partial<ExpertsTable>): Promise<void> {
  await db.updateTable('experts').set(set).where('account_id', '=', id).execute();
}

export async function replaceTags(db: Db, id: string, tags: readonly string[]): Promise<void> {
  await db.deleteFrom('expert_tags').where('expert_id', '=', id).execute();
  const unique = [...new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];
  if (unique.length > 0)
    await db
      .insertInto('expert_tags')
      .values(unique.map((tag) => ({ expert_id: id, tag })))
      .execute();
}

export interface DirectoryFilter {
  /** Online cut-off: seen after this (ISO) counts as online. */
  onlineAfter: string;
  status?: 'online' | 'busy' | 'offline';
  country?: string;
  tags?: string[];
  page: number;
  limit: number;
}

function directoryBase(db: Db, f: DirectoryFilter) {
  let q = db
    .selectFrom('experts as e')
    .where('e.is_active', '=', 1)
    // Internal accounts leave the directory only through is_active: certification aside, and a
    // delisting from before they became internal (silence never delists them) aside.
    .where((eb) =>
      eb.or([
        eb('e.is_internal', '=', 1),
        eb.and([eb('e.is_certified', '=', 1), eb('e.activity_status', '<>', 'DELISTED')]),
      ]),
    );
  const online = (eb: ExpressionBuilder<Database & { e: ExpertsTable }, 'e'>) =>
    eb.and([eb('e.is_online', '=', 1), eb('e.last_seen_at', '>', f.onlineAfter)]);
  if (f.status === 'online') q = q.where((eb) => eb.and([online(eb), eb('e.is_busy', '=', 0)]));
  if (f.status === 'busy') q = q.where((eb) => eb.and([online(eb), eb('e.is_busy', '=', 1)]));
  if (f.status === 'offline')
    q = q.where((eb) =>
      eb.or([
        eb('e.is_online', '=', 0),
        eb('e.last_seen_at', 'is', null),
        eb('e.last_seen_at', '<=', f.onlineAfter),
      ]),
    );
  if (f.country) q = q.where('e.country', '=', f.country);
  if (f.tags && f.tags.length > 0) {
    const tags = f.tags;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('expert_tags as t')
          .select('t.tag')
          .whereRef('t.expert_id', '=', 'e.account_id')
          .where('t.tag', 'in', tags),
      ),
    );
  }
  return q;
}

export async function directory(
  db: Db,
  f: DirectoryFilter,
): Promise<{ total: number; rows: ExpertsTable[] }> {
  const count = await directoryBase(db, f)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const rows = await directoryBase(db, f)
    .selectAll('e')
    .orderBy('e.reputation_score', 'desc')
    .orderBy('e.tier_rank', 'desc')
    .orderBy('e.account_id', 'asc')
    .limit(f.limit)
    .offset((f.page - 1) * f.limit)
    .execute();
  return { total: Number(count.n), rows };
}

export async function setPresence(
  db: Db,
  id: string,
  set: { is_online: number; last_seen_at: string; updated_at: string },
): Promise<void> {
  await db.updateTable('experts').set(set).where('account_id', '=', id).execute();
}

/** Experts marked online whose last heartbeat is at or before the cut-off. */
export async function expiredPresences(db: Db, cutoff: string): Promise<ExpertsTable[]> {
  return db
    .selectFrom('experts')
    .selectAll()
    .where('is_online', '=', 1)
    .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<=', cutoff)]))
    .execute();
}

/** Marks offline only if still silent (a heartbeat may have landed since the read). */
export async function expirePresence(db: Db, id: string, cutoff: string, now: string): Promise<boolean> {
  const res = await db
    .updateTable('experts')
    .set({ is_online: 0, updated_at: now })
    .where('account_id', '=', id)
    .where('is_online', '=', 1)
    .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<=', cutoff)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function activeExperts(db: Db): Promise<ExpertsTable[]> {
  return db.selectFrom('experts').selectAll().where('is_active', '=', 1).orderBy('account_id').execute();
}

export async function setTier(db: Db, id: string, tier: Tier, now: string): Promise<void> {
  await db
    .updateTable('experts')
    .set({ tier_level: tier, tier_rank: tierRank(tier), tier_changed_at: now, updated_at: now })
    .where('account_id', '=', id)
    .execute();
}

export async function setActivity(db: Db, id: string, status: ActivityStatus, now: string): Promise<void> {
  await db
    .updateTable('experts')
    .set({ activity_status: status, updated_at: now })
    .where('account_id', '=', id)
    .execute();
}

/** A closed mission: counters move in the statement (two closings at once both count). */
export async function recordClose(
  db: Db,
  id: string,
  resolved: boolean,
  busy: number,
  now: string,
): Promise<void> {
  await db
    .updateTable('experts')
    .set((eb) => ({
      is_busy: busy,
      missions_closed: eb('missions_closed', '+', 1),
      missions_resolved: eb('missions_resolved', '+', resolved ? 1 : 0),
      // A closing is a traced mission: it ends any silence warning or delisting.
      last_mission_at: now,
      activity_status: 'ACTIVE',
      updated_at: now,
    }))
    .where('account_id', '=', id)
    .execute();
}
