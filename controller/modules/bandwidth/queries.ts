// Every statement on the bandwidth tables (tenant-scoped by client_id, except the pass's claim,
// which works across tenants as the scheduler does, and the fleet's admin counts).
import type { Db } from '../../db/database.js';
import type {
  BandwidthActivityTable,
  BandwidthProgrammesTable,
  BandwidthRevisionsTable,
  BandwidthThrottlesTable,
} from './tables.js';

export const findProgramme = (db: Db, clientId: string, nasId: string) =>
  db
    .selectFrom('bandwidth_programmes')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .executeTakeFirst();

export const listProgrammes = (db: Db, clientId: string) =>
  db
    .selectFrom('bandwidth_programmes')
    .selectAll()
    .where('client_id', '=', clientId)
    .orderBy('nas_id')
    .execute();

export async function insertProgramme(db: Db, row: BandwidthProgrammesTable): Promise<void> {
  await db.insertInto('bandwidth_programmes').values(row).execute();
}

export async function updateProgramme(
  db: Db,
  clientId: string,
  nasId: string,
  changes: Partial<BandwidthProgrammesTable>,
): Promise<void> {
  await db
    .updateTable('bandwidth_programmes')
    .set(changes)
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .execute();
}

export async function insertRevision(db: Db, row: BandwidthRevisionsTable): Promise<void> {
  await db.insertInto('bandwidth_revisions').values(row).execute();
}

const CHUNK = 500;
const chunks = <T>(xs: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(xs.length / CHUNK) }, (_, i) => xs.slice(i * CHUNK, (i + 1) * CHUNK));

/**
 * Claims up to `limit` routers for one pass, oldest first: each claimed row gets `token` until
 * `until`, so a second pass (another instance, or the route during the job) skips them. The
 * UPDATE re-checks the lease row by row, so of two passes racing for a router one only gets it.
 */
export async function claimForPass(db: Db, token: string, now: string, until: string, limit: number) {
  const candidates = (
    await db
      .selectFrom('bandwidth_programmes')
      .select('nas_id')
      .where((eb) => eb.or([eb('enabled', '=', 1), eb('cleanup_pending', '=', 1)]))
      .where((eb) => eb.or([eb('pass_until', 'is', null), eb('pass_until', '<', now)]))
      .orderBy('last_pass_at')
      .orderBy('nas_id')
      .limit(limit)
      .execute()
  ).map((r) => r.nas_id);
  const claimed: BandwidthProgrammesTable[] = [];
  for (const ids of chunks(candidates)) {
    await db
      .updateTable('bandwidth_programmes')
      .set({ pass_token: token, pass_until: until })
      .where('nas_id', 'in', ids)
      .where((eb) => eb.or([eb('pass_until', 'is', null), eb('pass_until', '<', now)]))
      .execute();
    claimed.push(
      ...(await db
        .selectFrom('bandwidth_programmes')
        .selectAll()
        .where('nas_id', 'in', ids)
        .where('pass_token', '=', token)
        .execute()),
    );
  }
  return claimed.sort(
    (a, b) => a.last_pass_at.localeCompare(b.last_pass_at) || a.nas_id.localeCompare(b.nas_id),
  );
}

/** Ends the pass on routers it still holds whose outcome equals what they held: one statement. */
export async function finishUnchanged(db: Db, nasIds: readonly string[], token: string, at: string) {
  for (const ids of chunks(nasIds))
    await db
      .updateTable('bandwidth_programmes')
      .set({ checked_at: at, last_pass_at: at, pass_token: null, pass_until: null })
      .where('nas_id', 'in', ids)
      .where('pass_token', '=', token)
      .execute();
}

/** The throttled users of these routers (a pass), tenant-blind as the claim is. */
export async function throttlesOf(db: Db, nasIds: readonly string[]) {
  const out: BandwidthThrottlesTable[] = [];
  for (const ids of chunks(nasIds))
    out.push(
      ...(await db
        .selectFrom('bandwidth_throttles')
        .selectAll()
        .where('nas_id', 'in', ids)
        .orderBy('nas_id')
        .orderBy('username')
        .execute()),
    );
  return out;
}

/** Writes a pass's outcome on a router it still holds; false when the lease was lost. */
export async function finishPass(
  db: Db,
  nasId: string,
  token: string,
  changes: Partial<BandwidthProgrammesTable>,
): Promise<boolean> {
  const r = await db
    .updateTable('bandwidth_programmes')
    .set({ ...changes, pass_token: null, pass_until: null })
    .where('nas_id', '=', nasId)
    .where('pass_token', '=', token)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function insertActivity(db: Db, row: BandwidthActivityTable): Promise<void> {
  await db.insertInto('bandwidth_activity').values(row).execute();
}

/** Newest first, strictly before the cursor `(at, id)`. */
export function activityPage(
  db: Db,
  clientId: string,
  limit: number,
  before: { at: string; id: string } | null,
  nasId: string | undefined,
) {
  let q = db.selectFrom('bandwidth_activity').selectAll().where('client_id', '=', clientId);
  if (nasId) q = q.where('nas_id', '=', nasId);
  if (before)
    q = q.where((eb) =>
      eb.or([eb('at', '<', before.at), eb.and([eb('at', '=', before.at), eb('id', '<', before.id)])]),
    );
  return q.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The latest `limit` events of the whole fleet of these types since `since`. */
export const latestEvents = (db: Db, since: string, types: readonly string[], limit: number) =>
  db
    .selectFrom('bandwidth_activity')
    .select(['type'])
    .where('at', '>=', since)
    .where('type', 'in', types)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

export const allProgrammesSummary = (db: Db) =>
  db.selectFrom('bandwidth_programmes').select(['enabled', 'observed_state', 'in_error']).execute();

export const countAllThrottles = async (db: Db) =>
  Number(
    (
      await db
        .selectFrom('bandwidth_throttles')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst()
    )?.n ?? 0,
  );

export const listThrottles = (db: Db, clientId: string, nasId?: string) => {
  let q = db.selectFrom('bandwidth_throttles').selectAll().where('client_id', '=', clientId);
  if (nasId) q = q.where('nas_id', '=', nasId);
  return q.orderBy('nas_id').orderBy('username').execute();
};

export async function replaceThrottles(
  db: Db,
  clientId: string,
  nasId: string,
  rows: readonly BandwidthThrottlesTable[],
): Promise<void> {
  await db
    .deleteFrom('bandwidth_throttles')
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .execute();
  if (rows.length > 0)
    await db
      .insertInto('bandwidth_throttles')
      .values([...rows])
      .execute();
}

export async function markCappedDay(db: Db, clientId: string, nasId: string, day: string): Promise<void> {
  await db
    .insertInto('bandwidth_capped_days')
    .values({ client_id: clientId, nas_id: nasId, day })
    .onConflict((oc) => oc.columns(['nas_id', 'day']).doNothing())
    .execute();
}

export const cappedDays = (db: Db, clientId: string, nasId: string, from: string, to: string) =>
  db
    .selectFrom('bandwidth_capped_days')
    .select('day')
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .execute();

export const lastAlert = (db: Db, clientId: string, nasId: string, kind: string) =>
  db
    .selectFrom('bandwidth_alerts')
    .select('sent_at')
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('kind', '=', kind)
    .executeTakeFirst();

export async function saveAlert(
  db: Db,
  clientId: string,
  nasId: string,
  kind: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('bandwidth_alerts')
    .values({ client_id: clientId, nas_id: nasId, kind, sent_at: at })
    .onConflict((oc) => oc.columns(['nas_id', 'kind']).doUpdateSet({ sent_at: at }))
    .execute();
}

export const distinctThrottledUsers = (db: Db, clientId: string, since: string) =>
  db
    .selectFrom('bandwidth_activity')
    .select(['detail', 'nas_id'])
    .where('client_id', '=', clientId)
    .where('type', '=', 'USER_THROTTLED')
    .where('at', '>=', since)
    .execute();

/** Claims one router (a disable's immediate cleanup) unless a pass holds it. */
export async function claimOne(db: Db, nasId: string, token: string, now: string, until: string) {
  const r = await db
    .updateTable('bandwidth_programmes')
    .set({ pass_token: token, pass_until: until })
    .where('nas_id', '=', nasId)
    .where((eb) => eb.or([eb('pass_until', 'is', null), eb('pass_until', '<', now)]))
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('bandwidth_programmes').selectAll().where('nas_id', '=', nasId).executeTakeFirst();
}
