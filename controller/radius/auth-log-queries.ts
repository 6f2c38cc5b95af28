// Reads of the authentication log for one UTC day (the affluence of a client's hotspots). The same
// SQL on SQLite and PostgreSQL: `at` is ISO text, so the hour is characters 12-13 and a day is a
// text range on the index.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';

export interface AuthLogScope {
  clientId: string;
  from: string;
  to: string;
  nasId: string | null;
}

/** A device: its MAC when the NAS sent one (case folded), else its username. */
const deviceKey: RawBuilder<string> = sql<string>`coalesce('m:' || upper(nullif(calling_station_id, '')), 'u:' || username)`;
const hourOf: RawBuilder<string> = sql<string>`substr(at, ${sql.lit(12)}, ${sql.lit(2)})`;

function scoped(db: Db, s: AuthLogScope) {
  let q = db
    .selectFrom('radius_auth_log')
    .where('client_id', '=', s.clientId)
    .where('at', '>=', s.from)
    .where('at', '<', s.to);
  if (s.nasId) q = q.where('nas_id', '=', s.nasId);
  return q;
}

export async function hourly(db: Db, s: AuthLogScope) {
  const rows = await scoped(db, s)
    .select([hourOf.as('hour'), 'result', (eb) => eb.fn.countAll().as('n')])
    .groupBy([hourOf, 'result'])
    .execute();
  return rows.map((r) => ({ hour: Number(r.hour), result: r.result, n: Number(r.n) }));
}

export async function distinctClients(db: Db, s: AuthLogScope): Promise<number> {
  const row = await scoped(db, s)
    .select(sql<number>`count(distinct ${deviceKey})`.as('n'))
    .where('result', '=', 'ACCEPT')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Every attempt of the devices with at least `min` attempts that day, in time order. */
export function candidateAttempts(db: Db, s: AuthLogScope, min: number) {
  const busy = scoped(db, s)
    .select(deviceKey.as('device'))
    .groupBy(deviceKey)
    .having(sql`count(*)`, '>=', min);
  return scoped(db, s)
    .select([deviceKey.as('device'), 'calling_station_id', 'username', 'result', 'at'])
    .where(deviceKey, 'in', busy)
    .orderBy('at')
    .execute();
}

/** Whether the client (or one of its NAS) ever logged an authentication. */
export async function everLogged(db: Db, clientId: string, nasId: string | null): Promise<boolean> {
  let q = db.selectFrom('radius_auth_log').select('client_id').where('client_id', '=', clientId);
  if (nasId) q = q.where('nas_id', '=', nasId);
  return (await q.limit(1).executeTakeFirst()) !== undefined;
}

/** Clients with at least one authentication (accepted or refused) in [from, to). */
export async function activeClients(db: Db, from: string, to: string): Promise<string[]> {
  const rows = await db
    .selectFrom('radius_auth_log')
    .select('client_id')
    .distinct()
    .where('at', '>=', from)
    .where('at', '<', to)
    .orderBy('client_id')
    .execute();
  return rows.map((r) => r.client_id);
}
