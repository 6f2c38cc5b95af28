// Every statement on the broker's tables.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

export interface StoredPublication {
  seq: number;
  data: string;
}

export interface Stream {
  epoch: string;
  top: number;
  /** Lowest offset still kept (top + 1 when none is). */
  oldest: number;
}

/** Creates the channel's stream if absent (a fresh epoch). */
export async function ensureChannel(db: Db, name: string, epoch: string, now: string): Promise<void> {
  await db
    .insertInto('realtime_channels')
    .values({ name, epoch, top_offset: 0, created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/**
 * Takes the channel's next `count` offsets and answers the last. The row stays locked until the
 * transaction ends, so offsets are committed in the order they are taken (no reader ever sees
 * n+1 before n).
 */
export async function takeOffsets(db: Db, name: string, count: number): Promise<number> {
  const row = await db
    .updateTable('realtime_channels')
    .set((eb) => ({ top_offset: eb('top_offset', '+', count) }))
    .where('name', '=', name)
    .returning('top_offset')
    .executeTakeFirstOrThrow();
  return row.top_offset;
}

/**
 * Takes the next offsets, stores the publications with them (in the order given) and announces
 * each, in one statement: the channel row is locked only while it runs, and the NOTIFYs are sent
 * at its commit (`writableCtes`), in offset order (PostgreSQL evaluates a volatile function of
 * the select list after its ORDER BY). A NOTIFY payload is the offset, a space and `announced`
 * (the channel, see announcement.ts). Answers the first offset, null when the channel row is
 * missing.
 */
export async function publishInOneStatement(
  db: Db,
  channel: string,
  data: readonly string[],
  now: string,
  listenChannel: string,
  announced: string,
): Promise<number | null> {
  const count = data.length;
  const { rows } = await sql<{ seq: number }>`
    with next as (
      update realtime_channels set top_offset = top_offset + ${count}::integer where name = ${channel}
      returning top_offset - ${count}::integer as before
    ), stored as (
      insert into realtime_publications (channel, seq, data, created_at)
      select ${channel}, next.before + t.ord::integer, t.data, ${now}
      from next cross join unnest(${data}::text[]) with ordinality as t(data, ord)
      returning seq
    )
    select seq, pg_notify(${listenChannel}, seq || ' ' || ${announced}::text) as notified
    from stored
    order by seq`.execute(db);
  return rows[0]?.seq ?? null;
}

/** Publications at consecutive offsets from `first`, in the order given. */
export async function insertPublications(
  db: Db,
  channel: string,
  first: number,
  data: readonly string[],
  now: string,
): Promise<void> {
  await db
    .insertInto('realtime_publications')
    .values(data.map((d, i) => ({ channel, seq: first + i, data: d, created_at: now })))
    .execute();
}

export async function pruneHistory(db: Db, channel: string, keepAfter: number): Promise<void> {
  await db
    .deleteFrom('realtime_publications')
    .where('channel', '=', channel)
    .where('seq', '<=', keepAfter)
    .execute();
}

export async function notify(db: Db, listenChannel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${listenChannel}, ${payload})`.execute(db);
}

export async function stream(db: Db, channel: string): Promise<Stream | null> {
  const row = await db
    .selectFrom('realtime_channels')
    .select(['epoch', 'top_offset'])
    .where('name', '=', channel)
    .executeTakeFirst();
  if (!row) return null;
  const oldest = await db
    .selectFrom('realtime_publications')
    .select((eb) => eb.fn.min<number>('seq').as('seq'))
    .where('channel', '=', channel)
    .executeTakeFirst();
  return { epoch: row.epoch, top: row.top_offset, oldest: oldest?.seq ?? row.top_offset + 1 };
}

/** Publications after `after`, oldest first (or newest first with `reverse`). */
export async function publicationsAfter(
  db: Db,
  channel: string,
  after: number,
  limit: number,
  reverse = false,
): Promise<StoredPublication[]> {
  return db
    .selectFrom('realtime_publications')
    .select(['seq', 'data'])
    .where('channel', '=', channel)
    .where('seq', '>', after)
    .orderBy('seq', reverse ? 'desc' : 'asc')
    .limit(limit)
    .execute();
}

export interface PresenceRow {
  client_id: string;
  channel: string;
  user_id: string;
  instance_id: string;
  seen_at: string;
}

/** Several presence rows in one statement (a subscribe again renews its row). */
export async function addPresenceRows(db: Db, rows: PresenceRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('realtime_presence')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['channel', 'client_id']).doUpdateSet((eb) => ({ seen_at: eb.ref('excluded.seen_at') })),
    )
    .execute();
}

export async function removePresence(db: Db, clientId: string, channel?: string): Promise<void> {
  let q = db.deleteFrom('realtime_presence').where('client_id', '=', clientId);
  if (channel !== undefined) q = q.where('channel', '=', channel);
  await q.execute();
}

/** Every row of these connections (their sockets closed). */
export async function removeClients(db: Db, clientIds: string[]): Promise<void> {
  if (clientIds.length === 0) return;
  await db.deleteFrom('realtime_presence').where('client_id', 'in', clientIds).execute();
}

export async function presenceOf(db: Db, channel: string): Promise<{ client_id: string; user_id: string }[]> {
  return db
    .selectFrom('realtime_presence')
    .select(['client_id', 'user_id'])
    .where('channel', '=', channel)
    .orderBy('client_id')
    .execute();
}

export async function touchInstance(db: Db, instanceId: string, now: string): Promise<void> {
  await db
    .updateTable('realtime_presence')
    .set({ seen_at: now })
    .where('instance_id', '=', instanceId)
    .execute();
}

export async function dropInstance(db: Db, instanceId: string): Promise<void> {
  await db.deleteFrom('realtime_presence').where('instance_id', '=', instanceId).execute();
}

export async function pruneStalePresence(db: Db, before: string): Promise<number> {
  const res = await db.deleteFrom('realtime_presence').where('seen_at', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
