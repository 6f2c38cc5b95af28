import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import type { SalesRecordsTable, SalesRecordType } from './tables.js';

/** Columns per row, for sizing multi-row inserts under the dialect's bound-parameter limit. */
export const SALES_COLUMNS = 21;

/** Inserts the rows whose entry is not stored yet; answers how many were new. */
export async function insertNew(db: Db, rows: SalesRecordsTable[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await db
    .insertInto('sales_records')
    .values(rows)
    .onConflict((oc) => oc.columns(['client_id', 'entry_hash']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0);
}

export interface SalesFilter {
  allocationId?: string | undefined;
  type?: SalesRecordType | undefined;
  reseller?: string | undefined;
  /** Inclusive lower bound of sold_at (ISO). */
  from?: string | undefined;
  /** Upper bound of sold_at (ISO): exclusive for a date, inclusive for a time. */
  to?: { value: string; inclusive: boolean } | undefined;
}

export function listSales(db: Db, clientId: string, f: SalesFilter, limit: number, offset: number) {
  let q = db.selectFrom('sales_records').selectAll().where('client_id', '=', clientId);
  if (f.allocationId !== undefined) q = q.where('allocation_id', '=', f.allocationId);
  if (f.type !== undefined) q = q.where('type', '=', f.type);
  if (f.reseller !== undefined) q = q.where('reseller_name', '=', f.reseller);
  if (f.from !== undefined) q = q.where('sold_at', '>=', f.from);
  if (f.to !== undefined) q = q.where('sold_at', f.to.inclusive ? '<=' : '<', f.to.value);
  // Newest first; undated rows last on both dialects (NULL sorts differently in each).
  return q
    .orderBy(sql`coalesce(sold_at, '')`, 'desc')
    .orderBy('script_no', 'desc')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
}

const isVente = sql<SqlBool>`type = 'VENTE'`;
const money = (when: Expression<SqlBool>) =>
  sql<string>`sum(case when ${when} then coalesce(price_xof, 0) else 0 end)`;
const tally = (when: Expression<SqlBool>) => sql<string>`sum(case when ${when} then 1 else 0 end)`;

export async function totals(db: Db, clientId: string, allocationId: string | undefined) {
  let q = db
    .selectFrom('sales_records')
    .select([
      tally(isVente).as('ventes_count'),
      money(isVente).as('ventes_xof'),
      tally(sql<SqlBool>`type = 'CONNEXION'`).as('connexions_count'),
      tally(sql<SqlBool>`type = 'VENTE' and sold_at is null`).as('undated_ventes_count'),
      money(sql<SqlBool>`type = 'VENTE' and sold_at is null`).as('undated_ventes_xof'),
      tally(sql<SqlBool>`type = 'VENTE' and price_xof is null`).as('unpriced_ventes_count'),
    ])
    .where('client_id', '=', clientId);
  if (allocationId !== undefined) q = q.where('allocation_id', '=', allocationId);
  return q.executeTakeFirstOrThrow();
}

export async function monthly(db: Db, clientId: string, allocationId: string | undefined, year?: number) {
  let q = db
    .selectFrom('sales_records')
    .select([
      'month',
      tally(isVente).as('ventes_count'),
      money(isVente).as('ventes_xof'),
      tally(sql<SqlBool>`type = 'CONNEXION'`).as('connexions_count'),
    ])
    .where('client_id', '=', clientId)
    .where('month', 'is not', null);
  if (allocationId !== undefined) q = q.where('allocation_id', '=', allocationId);
  if (year !== undefined) q = q.where('month', 'like', `${year}-%`);
  return q.groupBy('month').orderBy('month').execute();
}
