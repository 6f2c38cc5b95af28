import type { Db } from '../../db/database.js';
import type { DevicePlatform, NotificationsTable, PushState } from './tables.js';

/** Inserts unless the recipient already has this type and key; answers whether the row is new. */
export async function insertIfNew(db: Db, row: NotificationsTable): Promise<boolean> {
  const res = await db
    .insertInto('notifications')
    .values(row)
    .onConflict((oc) => oc.columns(['client_id', 'type', 'dedup_key']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}

export const findByKey = (db: Db, clientId: string, type: string, dedupKey: string) =>
  db
    .selectFrom('notifications')
    .select(['id'])
    .where('client_id', '=', clientId)
    .where('type', '=', type)
    .where('dedup_key', '=', dedupKey)
    .executeTakeFirst();

export async function countOfType(db: Db, clientId: string, type: string): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('client_id', '=', clientId)
    .where('type', '=', type)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export function listInbox(db: Db, clientId: string, unreadOnly: boolean, limit: number, offset: number) {
  let q = db
    .selectFrom('notifications')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('in_app', '=', 1);
  if (unreadOnly) q = q.where('read_at', 'is', null);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute();
}

export async function countUnread(db: Db, clientId: string): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('client_id', '=', clientId)
    .where('in_app', '=', 1)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export const findInboxRow = (db: Db, clientId: string, id: string) =>
  db
    .selectFrom('notifications')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('in_app', '=', 1)
    .executeTakeFirst();

/** Marks one notification read; a notification already read keeps its first read time. */
export const markRead = (db: Db, clientId: string, id: string, at: string) =>
  db
    .updateTable('notifications')
    .set({ read_at: at })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('read_at', 'is', null)
    .execute();

export async function markAllRead(db: Db, clientId: string, at: string): Promise<number> {
  const res = await db
    .updateTable('notifications')
    .set({ read_at: at })
    .where('client_id', '=', clientId)
    .where('in_app', '=', 1)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Due pushes not claimed by a live dispatcher run, oldest due first. */
export const dueIds = (db: Db, now: string, limit: number) =>
  db
    .selectFrom('notifications')
    .select(['id'])
    .where('push_state', '=', 'PENDING')
    .where('push_next_at', '<=', now)
    .where((eb) => eb.or([eb('push_claim_until', 'is', null), eb('push_claim_until', '<=', now)]))
    .orderBy('push_next_at')
    .limit(limit)
    .execute();

/** Claims rows; the conditions are checked again by the UPDATE, so two runs never claim one row. */
export const claim = (db: Db, ids: string[], now: string, claimId: string, until: string) =>
  db
    .updateTable('notifications')
    .set({ push_claim: claimId, push_claim_until: until })
    .where('id', 'in', ids)
    .where('push_state', '=', 'PENDING')
    .where((eb) => eb.or([eb('push_claim_until', 'is', null), eb('push_claim_until', '<=', now)]))
    .execute();

export const claimed = (db: Db, claimId: string) =>
  db
    .selectFrom('notifications')
    .select(['id', 'client_id', 'type', 'title', 'body', 'data', 'push_attempts'])
    .where('push_claim', '=', claimId)
    .where('push_state', '=', 'PENDING')
    .execute();

export interface PushOutcome {
  push_state: PushState;
  push_attempts: number;
  push_sent_at: string | null;
  push_error: string | null;
  push_next_at: string | null;
}

/** Records a send under the claim that made it (a run whose claim lapsed writes nothing). */
export const recordPush = (db: Db, id: string, claimId: string, outcome: PushOutcome) =>
  db
    .updateTable('notifications')
    .set({ ...outcome, push_claim: null, push_claim_until: null })
    .where('id', '=', id)
    .where('push_claim', '=', claimId)
    .execute();

/** Registers a token for an account; a token seen before moves to the account registering it now. */
export const upsertDevice = (db: Db, token: string, clientId: string, platform: DevicePlatform, at: string) =>
  db
    .insertInto('notification_devices')
    .values({ token, client_id: clientId, platform, created_at: at, updated_at: at })
    .onConflict((oc) => oc.column('token').doUpdateSet({ client_id: clientId, platform, updated_at: at }))
    .execute();

export const findDevice = (db: Db, token: string) =>
  db.selectFrom('notification_devices').selectAll().where('token', '=', token).executeTakeFirst();

export async function deviceTokens(db: Db, clientId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('notification_devices')
    .select(['token'])
    .where('client_id', '=', clientId)
    .orderBy('updated_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => r.token);
}

export const deleteDevice = (db: Db, token: string) =>
  db.deleteFrom('notification_devices').where('token', '=', token).execute();
