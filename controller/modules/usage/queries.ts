// Every statement on the usage tables.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { UsageHoursTable, UsageRoutersTable } from './tables.js';

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

export async function addHourBytes(db: Db, row: UsageHoursTable): Promise<void> {
  await db
    .insertInto('usage_hours')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['allocation_id', 'hour']).doUpdateSet({
        bytes: sql`usage_hours.bytes + ${row.bytes}`,
        local_day: row.local_day,
      }),
    )
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

export async function bytesSince(
  db: Db,
  clientId: string,
  allocationId: string,
  hour: string,
): Promise<number> {
  const row = await db
    .selectFrom('usage_hours')
    .select((eb) => eb.fn.sum<number>('bytes').as('bytes'))
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .where('hour', '>=', hour)
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

// The same reads for many routers at once (a reconciliation pass), in chunks the drivers accept.
const CHUNK = 500;
const chunks = <T>(xs: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(xs.length / CHUNK) }, (_, i) => xs.slice(i * CHUNK, (i + 1) * CHUNK));

export async function findRouters(db: Db, allocationIds: readonly string[]) {
  const out: UsageRoutersTable[] = [];
  for (const ids of chunks(allocationIds))
    out.push(
      ...(await db.selectFrom('usage_routers').selectAll().where('allocation_id', 'in', ids).execute()),
    );
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
