// Statements on missions, the category catalogue, reviews, notes and supervisions.
import type { Db } from '../../db/database.js';
import type {
  SupportMissionsTable,
  SupportNotesTable,
  SupportReviewsTable,
  SupportSupervisionsTable,
  Tier,
} from './tables.js';

export async function categoryTier(db: Db, code: string): Promise<Tier | null> {
  const row = await db
    .selectFrom('support_categories')
    .select('required_tier')
    .where('code', '=', code)
    .executeTakeFirst();
  return row?.required_tier ?? null;
}

export async function insertMission(db: Db, row: SupportMissionsTable): Promise<void> {
  await db.insertInto('support_missions').values(row).execute();
}

export async function findMission(db: Db, id: string): Promise<SupportMissionsTable | undefined> {
  return db.selectFrom('support_missions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Open missions a technician may see (never PENDING_PAYMENT), oldest first. */
export async function openMissions(db: Db, limit: number): Promise<SupportMissionsTable[]> {
  return db
    .selectFrom('support_missions')
    .selectAll()
    .where('status', '=', 'OPEN')
    .where('assignee_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The claim: one conditional update; true for the one caller that changed the row. */
export async function claim(db: Db, id: string, expertId: string, now: string): Promise<boolean> {
  const res = await db
    .updateTable('support_missions')
    .set({ assignee_id: expertId, claimed_at: now })
    .where('id', '=', id)
    .where('status', '=', 'OPEN')
    .where('assignee_id', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function close(
  db: Db,
  id: string,
  expertId: string,
  resolved: boolean,
  now: string,
): Promise<boolean> {
  const res = await db
    .updateTable('support_missions')
    .set({ status: 'CLOSED', resolved: resolved ? 1 : 0, closed_at: now })
    .where('id', '=', id)
    .where('assignee_id', '=', expertId)
    .where('status', '=', 'OPEN')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function openUrgentCount(db: Db, expertId: string): Promise<number> {
  const row = await db
    .selectFrom('support_missions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('assignee_id', '=', expertId)
    .where('status', '=', 'OPEN')
    .where('is_urgent', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface MissionCounts {
  free_closed: number;
  closed: number;
  resolved: number;
}

/** Closed missions the expert took, since a time (all time when null). */
export async function closedCounts(db: Db, expertId: string, since: string | null): Promise<MissionCounts> {
  let q = db
    .selectFrom('support_missions')
    .select((eb) => [
      eb.fn.countAll<number>().as('closed'),
      eb.fn
        .sum<number>(eb.case().when('payment_status', '=', 'FREE').then(1).else(0).end())
        .as('free_closed'),
      eb.fn.sum<number>(eb.case().when('resolved', '=', 1).then(1).else(0).end()).as('resolved'),
    ])
    .where('assignee_id', '=', expertId)
    .where('status', '=', 'CLOSED');
  if (since) q = q.where('closed_at', '>=', since);
  const row = await q.executeTakeFirstOrThrow();
  return {
    closed: Number(row.closed),
    free_closed: Number(row.free_closed ?? 0),
    resolved: Number(row.resolved ?? 0),
  };
}

/** Missions a technician of this rank could have taken, created since a time (free ones only if asked). */
export async function availableSince(
  db: Db,
  rank: number,
  since: string,
  freeOnly: boolean,
): Promise<number> {
  let q = db
    .selectFrom('support_missions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('created_at', '>=', since)
    .where('status', '<>', 'PENDING_PAYMENT')
    .where('required_rank', '<=', rank);
  if (freeOnly) q = q.where('payment_status', '=', 'FREE');
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function supervisionsSince(db: Db, supervisorId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('support_supervisions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('supervisor_id', '=', supervisorId)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertReview(db: Db, row: SupportReviewsTable): Promise<void> {
  await db.insertInto('support_reviews').values(row).execute();
}

export async function reviewsOf(db: Db, expertId: string): Promise<SupportReviewsTable[]> {
  return db.selectFrom('support_reviews').selectAll().where('expert_id', '=', expertId).execute();
}

/** The expert's reviews counted and their ratings summed (the exact mean is sum / votes). */
export async function ratingTotals(db: Db, expertId: string): Promise<{ votes: number; sum: number }> {
  const row = await db
    .selectFrom('support_reviews')
    .select((eb) => [eb.fn.countAll().as('votes'), eb.fn.coalesce(eb.fn.sum('rating'), eb.lit(0)).as('sum')])
    .where('expert_id', '=', expertId)
    .executeTakeFirstOrThrow();
  return { votes: Number(row.votes), sum: Number(row.sum) };
}

export async function latestReviews(db: Db, expertId: string, limit: number): Promise<SupportReviewsTable[]> {
  return db
    .selectFrom('support_reviews')
    .selectAll()
    .where('expert_id', '=', expertId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function insertNote(db: Db, row: SupportNotesTable): Promise<void> {
  await db.insertInto('support_notes').values(row).execute();
}

export async function notesOf(db: Db, missionId: string): Promise<SupportNotesTable[]> {
  return db
    .selectFrom('support_notes')
    .selectAll()
    .where('mission_id', '=', missionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function insertSupervision(db: Db, row: SupportSupervisionsTable): Promise<void> {
  await db.insertInto('support_supervisions').values(row).execute();
}

export async function findSupervision(
  db: Db,
  missionId: string,
): Promise<SupportSupervisionsTable | undefined> {
  return db
    .selectFrom('support_supervisions')
    .selectAll()
    .where('mission_id', '=', missionId)
    .executeTakeFirst();
}
