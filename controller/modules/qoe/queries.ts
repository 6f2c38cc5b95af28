// Every statement on the QoE tables.
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

export const findBridgeToken = (db: Db, tokenHash: string) =>
  db.selectFrom('qoe_bridge_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();

/** The bridge tokens issued for an allocation's NAS, newest first (a NAS deleted then enrolled again). */
export const bridgeTokensOfAllocation = (db: Db, allocationId: string) =>
  db
    .selectFrom('qoe_bridge_tokens')
    .select(['nas_id', 'client_id'])
    .where('allocation_id', '=', allocationId)
    .orderBy('issued_at', 'desc')
    .execute();

/** Enrolled NAS after `afterNasId` (keyset), for the catch-up job. */
export const listBridgeTokens = (db: Db, afterNasId: string, limit: number) =>
  db
    .selectFrom('qoe_bridge_tokens')
    .select(['nas_id', 'client_id', 'allocation_id'])
    .where('nas_id', '>', afterNasId)
    .orderBy('nas_id')
    .limit(limit)
    .execute();

/** Inserts the point unless the NAS already sent one at that instant; true when inserted. */
export async function insertPoint(db: Db, row: QoePointsTable): Promise<boolean> {
  const result = await db
    .insertInto('qoe_points')
    .values(row)
    .onConflict((oc) => oc.columns(['nas_id', 'observed_at']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export const findPointAt = (db: Db, nasId: string, observedAt: string) =>
  db
    .selectFrom('qoe_points')
    .select(['id', 'observed_at'])
    .where('nas_id', '=', nasId)
    .where('observed_at', '=', observedAt)
    .executeTakeFirst();

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
