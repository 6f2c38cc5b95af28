// Every statement on the usage tables.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { UsageHoursTable, UsageRoutersTable } from './tables.js';

// Statements on many routers at once (a reconciliation pass, a batch of points) go in chunks the
// drivers accept.
export const CHUNK = 500;
const chunks = <T>(xs: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(xs.length / CHUNK) }, (_, i) => xs.slice(i * CHUNK, (i + 1) * CHUNK));

export const findRouter = (db: Db, allocationId: string) =>
  db.selectFrom('usage_routers').selectAll().where('allocation_id', '=', allocationId).executeTakeFirst();

export async function saveRouter(db: Db, row: UsageRoutersTable): Promise<void> {
  const { allocation_id: _id, ...changes } = row;
  await db
    .insertInto('usage_routers')
    .values(row)
    .onConflict((oc) => oc.column('allocation_id').doUpdateSet(changes))
    .execute();
}

const upsertRouters = (db: Db, rows: readonly UsageRoutersTable[]) =>
  db
    .insertInto('usage_routers')
    .values(rows)
    .onConflict((oc) =>
      oc.column('allocation_id').doUpdateSet((eb) => ({
        client_id: eb.ref('excluded.client_id'),
        time_zone: eb.ref('excluded.time_zone'),
        last_at: eb.ref('excluded.last_at'),
        last_rx_bytes: eb.ref('excluded.last_rx_bytes'),
        last_tx_bytes: eb.ref('excluded.last_tx_bytes'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    );

const upsertHours = (db: Db, rows: readonly UsageHoursTable[]) =>
  db
    .insertInto('usage_hours')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['allocation_id', 'hour']).doUpdateSet((eb) => ({
        bytes: sql`usage_hours.bytes + excluded.bytes`,
        local_day: eb.ref('excluded.local_day'),
      })),
    );

/** Saves many routers' rows in statements of CHUNK rows (one row per router). */
export async function saveRouters(db: Db, rows: readonly UsageRoutersTable[]): Promise<void> {
  for (const part of chunks(rows)) await upsertRouters(db, part).execute();
}

/** Adds bytes to many hour buckets (one row per bucket) in statements of CHUNK rows. */
export async function addHoursBytes(db: Db, rows: readonly UsageHoursTable[]): Promise<void> {
  for (const part of chunks(rows)) await upsertHours(db, part).execute();
}

/**
 * `saveRouters` and `addHoursBytes` of at most CHUNK rows each, and `bytesSinceMany` of the
 * routers given, in one statement (`writableCtes`): the sums are read from the snapshot the
 * statement started with, so they leave out the bytes it adds.
 */
export async function saveAndSumBefore(
  db: Db,
  routers: readonly UsageRoutersTable[],
  hours: readonly UsageHoursTable[],
  allocationIds: readonly string[],
  hour: string,
) {
  return db
    .with('saved_routers', () => upsertRouters(db, routers).returning('allocation_id'))
    .with('saved_hours', () => upsertHours(db, hours).returning('allocation_id'))
    .selectFrom('usage_hours')
    .select(['allocation_id', 'client_id', (eb) => eb.fn.sum<number>('bytes').as('bytes')])
    .where('allocation_id', 'in', allocationIds)
    .where('hour', '>=', hour)
    .groupBy(['allocation_id', 'client_id'])
    .execute();
}

export async function dayTotals(db: Db, clientId: string, allocationId: string, from: string, to: string) {
  return db
    .selectFrom('usage_hours')
    .select(['local_day', (eb) => eb.fn.sum<number>('bytes').as('bytes')])
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .where('local_day', '>=', from)
    .where('local_day', '<=', to)
    .groupBy('local_day')
    .orderBy('local_day')
    .execute();
}

/** The router's bytes per hour bucket from `hour` on. */
export async function hourBytesSince(
  db: Db,
  clientId: string,
  allocationId: string,
  hour: string,
): Promise<{ hour: string; bytes: number }[]> {
  const rows = await db
    .selectFrom('usage_hours')
    .select(['hour', (eb) => eb.fn.sum<number>('bytes').as('bytes')])
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .where('hour', '>=', hour)
    .groupBy('hour')
    .execute();
  return rows.map((r) => ({ hour: r.hour, bytes: Number(r.bytes) }));
}

/** `hourBytesSince` of many routers, per router, client and hour bucket. */
export async function hourBytesSinceMany(db: Db, allocationIds: readonly string[], hour: string) {
  const out: { allocation_id: string; client_id: string; hour: string; bytes: number }[] = [];
  for (const ids of chunks(allocationIds))
    for (const r of await db
      .selectFrom('usage_hours')
      .select(['allocation_id', 'client_id', 'hour', (eb) => eb.fn.sum<number>('bytes').as('bytes')])
      .where('allocation_id', 'in', ids)
      .where('hour', '>=', hour)
      .groupBy(['allocation_id', 'client_id', 'hour'])
      .execute())
      out.push({ ...r, bytes: Number(r.bytes) });
  return out;
}

/**
 * The routers' rows; with `lock` (PostgreSQL), locked until the transaction ends, in key order so
 * that two instances locking overlapping sets wait for each other instead of deadlocking.
 */
export async function findRouters(db: Db, allocationIds: readonly string[], lock = false) {
  const out: UsageRoutersTable[] = [];
  for (const ids of chunks([...allocationIds].sort())) {
    const q = db.selectFrom('usage_routers').selectAll().where('allocation_id', 'in', ids);
    out.push(...(await (lock ? q.orderBy('allocation_id').forUpdate() : q).execute()));
  }
  return out;
}

/** Bytes per (router, local day) from `from` on. */
export async function dayTotalsMany(db: Db, allocationIds: readonly string[], from: string) {
  const out: { allocation_id: string; client_id: string; local_day: string; bytes: number }[] = [];
  for (const ids of chunks(allocationIds))
    out.push(
      ...(await db
        .selectFrom('usage_hours')
        .select(['allocation_id', 'client_id', 'local_day', (eb) => eb.fn.sum<number>('bytes').as('bytes')])
        .where('allocation_id', 'in', ids)
        .where('local_day', '>=', from)
        .groupBy(['allocation_id', 'client_id', 'local_day'])
        .execute()),
    );
  return out;
}

/** Bytes per router of the hour buckets from `hour` on. */
export async function bytesSinceMany(db: Db, allocationIds: readonly string[], hour: string) {
  const out: { allocation_id: string; client_id: string; bytes: number }[] = [];
  for (const ids of chunks(allocationIds))
    out.push(
      ...(await db
        .selectFrom('usage_hours')
        .select(['allocation_id', 'client_id', (eb) => eb.fn.sum<number>('bytes').as('bytes')])
        .where('allocation_id', 'in', ids)
        .where('hour', '>=', hour)
        .groupBy(['allocation_id', 'client_id'])
        .execute()),
    );
  return out;
}
