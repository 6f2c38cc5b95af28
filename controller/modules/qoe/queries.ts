// Every statement on the QoE tables.
import { chunks } from '../../core/chunks.js';
import type { Db } from '../../db/database.js';
import type { QoeAlertsTable, QoeBridgeTokensTable, QoePointsTable, QoeReportsTable } from './tables.js';

export async function saveBridgeToken(db: Db, row: QoeBridgeTokensTable): Promise<void> {
  const { nas_id: _n, ...update } = row;
  await db
    .insertInto('qoe_bridge_tokens')
    .values(row)
    .onConflict((oc) => oc.column('nas_id').doUpdateSet(update))
    .execute();
}

// Points are 14 columns: 500 a statement stays far below either driver's bound parameters.
const POINTS_PER_STATEMENT = 500;

/** The bridge tokens with these hashes. */
export async function findBridgeTokens(db: Db, tokenHashes: readonly string[]) {
  const out: QoeBridgeTokensTable[] = [];
  for (const part of chunks(tokenHashes, 500))
    out.push(
      ...(await db.selectFrom('qoe_bridge_tokens').selectAll().where('token_hash', 'in', part).execute()),
    );
  return out;
}

/**
 * The bridge tokens issued for these allocations' NAS, newest first (a NAS deleted then enrolled
 * again).
 */
export async function bridgeTokensOfAllocations(db: Db, allocationIds: readonly string[]) {
  const out: Pick<QoeBridgeTokensTable, 'nas_id' | 'client_id' | 'allocation_id'>[] = [];
  for (const part of chunks(allocationIds, 500))
    out.push(
      ...(await db
        .selectFrom('qoe_bridge_tokens')
        .select(['nas_id', 'client_id', 'allocation_id'])
        .where('allocation_id', 'in', part)
        .orderBy('issued_at', 'desc')
        .execute()),
    );
  return out;
}

/** Enrolled NAS after `afterNasId` (keyset), for the catch-up job. */
export const listBridgeTokens = (db: Db, afterNasId: string, limit: number) =>
  db
    .selectFrom('qoe_bridge_tokens')
    .select(['nas_id', 'client_id', 'allocation_id'])
    .where('nas_id', '>', afterNasId)
    .orderBy('nas_id')
    .limit(limit)
    .execute();

/**
 * Inserts the points (at most one per NAS and instant among them), leaving out those whose NAS
 * already sent one at that instant; answers the ids of the rows inserted.
 */
export async function insertPoints(db: Db, rows: readonly QoePointsTable[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (const part of chunks(rows, POINTS_PER_STATEMENT)) {
    const done = await db
      .insertInto('qoe_points')
      .values(part)
      .onConflict((oc) => oc.columns(['nas_id', 'observed_at']).doNothing())
      .returning('id')
      .execute();
    for (const r of done) inserted.add(r.id);
  }
  return inserted;
}

/** The stored points at these (NAS, instant) keys: a superset is read, the caller picks its keys. */
export async function findPointsAt(db: Db, keys: readonly { nas_id: string; observed_at: string }[]) {
  const out: { id: string; nas_id: string; observed_at: string }[] = [];
  for (const part of chunks(keys, 500))
    out.push(
      ...(await db
        .selectFrom('qoe_points')
        .select(['id', 'nas_id', 'observed_at'])
        .where(
          'nas_id',
          'in',
          part.map((k) => k.nas_id),
        )
        .where(
          'observed_at',
          'in',
          part.map((k) => k.observed_at),
        )
        .execute()),
    );
  return out;
}

export const latestPoint = (db: Db, clientId: string, nasId: string) =>
  db
    .selectFrom('qoe_points')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .orderBy('observed_at', 'desc')
    .limit(1)
    .executeTakeFirst();

/** The lowest RTT of the NAS's points observed from `since` to `until` (inclusive). */
export async function minRtt(
  db: Db,
  clientId: string,
  nasId: string,
  since: string,
  until: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('qoe_points')
    .select((eb) => eb.fn.min<number | null>('rtt_ms').as('rtt'))
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('observed_at', '>=', since)
    .where('observed_at', '<=', until)
    .executeTakeFirst();
  return row?.rtt === null || row?.rtt === undefined ? null : Number(row.rtt);
}

/** Records the alert unless this NAS already had this type on this day; true when recorded. */
export async function insertAlert(db: Db, row: QoeAlertsTable): Promise<boolean> {
  const result = await db
    .insertInto('qoe_alerts')
    .values(row)
    .onConflict((oc) => oc.columns(['nas_id', 'type', 'day']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export const alertsOfDay = (db: Db, clientId: string, nasId: string, day: string) =>
  db
    .selectFrom('qoe_alerts')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('day', '=', day)
    .execute();

/** The clients with at least one enrolled NAS, after `afterClientId` (keyset), for the report job. */
export const listReportClients = (db: Db, afterClientId: string, limit: number) =>
  db
    .selectFrom('qoe_bridge_tokens')
    .select('client_id')
    .distinct()
    .where('client_id', '>', afterClientId)
    .orderBy('client_id')
    .limit(limit)
    .execute();

export const pointsBetween = (db: Db, clientId: string, nasId: string, from: string, to: string) =>
  db
    .selectFrom('qoe_points')
    .select(['observed_at', 'rtt_ms', 'packet_loss_pct', 'top_consumers'])
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('observed_at', '>=', from)
    .where('observed_at', '<=', to)
    .orderBy('observed_at')
    .execute();

export const alertsOfClientDay = (db: Db, clientId: string, day: string) =>
  db
    .selectFrom('qoe_alerts')
    .select(['nas_id', 'type', 'raised_at', 'usage'])
    .where('client_id', '=', clientId)
    .where('day', '=', day)
    .orderBy('raised_at')
    .execute();

export async function insertReport(db: Db, row: QoeReportsTable): Promise<boolean> {
  const result = await db
    .insertInto('qoe_reports')
    .values(row)
    .onConflict((oc) => oc.columns(['client_id', 'date']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export const findReport = (db: Db, clientId: string, date: string) =>
  db
    .selectFrom('qoe_reports')
    .select('id')
    .where('client_id', '=', clientId)
    .where('date', '=', date)
    .executeTakeFirst();

export const listReports = (db: Db, clientId: string, limit: number) =>
  db
    .selectFrom('qoe_reports')
    .selectAll()
    .where('client_id', '=', clientId)
    .orderBy('date', 'desc')
    .limit(limit)
    .execute();
