import { chunks } from '../../core/chunks.js';
import type { Db } from '../../db/database.js';
import type { ResellerLedgerTable, ResellersTable, ResellerTokensTable } from './tables.js';

// Values per IN list: well below both databases' bound-parameter limits.
const IDS_PER_STATEMENT = 500;

export const insertReseller = (db: Db, row: ResellersTable) =>
  db.insertInto('resellers').values(row).execute();

export const findByUsername = (db: Db, clientId: string, username: string) =>
  db
    .selectFrom('resellers')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('username', '=', username)
    .executeTakeFirst();

/** The live row, locked for the rest of the transaction where the dialect has row locks. */
export const findForUpdate = (db: Db, clientId: string, id: string, rowLocks: boolean) => {
  const q = db.selectFrom('resellers').selectAll().where('client_id', '=', clientId).where('id', '=', id);
  return (rowLocks ? q.forUpdate() : q).executeTakeFirst();
};

export const listResellers = (db: Db, clientId: string, limit: number, offset: number) =>
  db
    .selectFrom('resellers')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('deleted_at', 'is', null)
    .orderBy('username')
    .limit(limit)
    .offset(offset)
    .execute();

export const updateReseller = (db: Db, id: string, changes: Partial<ResellersTable>) =>
  db.updateTable('resellers').set(changes).where('id', '=', id).execute();

/** Moves the balance only if it still holds `expected`: a lost update can never go unnoticed. */
export async function moveBalance(
  db: Db,
  id: string,
  expected: number,
  next: number,
  extra: { tickets: number; sales: number; updatedAt: string },
): Promise<boolean> {
  const res = await db
    .updateTable('resellers')
    .set((eb) => ({
      balance: next,
      tickets_issued: eb('tickets_issued', '+', extra.tickets),
      total_sales: eb('total_sales', '+', extra.sales),
      updated_at: extra.updatedAt,
    }))
    .where('id', '=', id)
    .where('balance', '=', expected)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export const insertToken = (db: Db, row: ResellerTokensTable) =>
  db.insertInto('reseller_tokens').values(row).execute();

export const findToken = (db: Db, hash: string) =>
  db
    .selectFrom('reseller_tokens as t')
    .innerJoin('resellers as r', 'r.id', 't.reseller_id')
    .select(['t.expires_at', 'r.id as reseller_id', 'r.client_id', 'r.username', 'r.deleted_at'])
    .where('t.token_hash', '=', hash)
    .executeTakeFirst();

export const insertLedgerLine = (db: Db, row: ResellerLedgerTable) =>
  db.insertInto('reseller_ledger').values(row).execute();

export const findLedgerByKey = (db: Db, resellerId: string, key: string) =>
  db
    .selectFrom('reseller_ledger')
    .selectAll()
    .where('reseller_id', '=', resellerId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();

export const listLedger = (db: Db, resellerId: string, limit: number, offset: number) =>
  db
    .selectFrom('reseller_ledger')
    .selectAll()
    .where('reseller_id', '=', resellerId)
    .orderBy('line_no', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();

/** Sum of a reseller's ledger: must always equal its balance. */
export const ledgerSum = async (db: Db, resellerId: string): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('reseller_ledger')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('total'))
        .where('reseller_id', '=', resellerId)
        .executeTakeFirst()
    )?.total ?? 0,
  );

export const lastLineNo = async (db: Db, resellerId: string): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('reseller_ledger')
        .select((eb) => eb.fn.max('line_no').as('last'))
        .where('reseller_id', '=', resellerId)
        .executeTakeFirst()
    )?.last ?? 0,
  );

export const insertLedgerLines = (db: Db, rows: ResellerLedgerTable[]) =>
  db.insertInto('reseller_ledger').values(rows).execute();

/** Which of `keys` this reseller's ledger already holds. */
export async function ledgerKeys(db: Db, resellerId: string, keys: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(keys, IDS_PER_STATEMENT)) {
    const rows = await db
      .selectFrom('reseller_ledger')
      .select('idempotency_key')
      .where('reseller_id', '=', resellerId)
      .where('idempotency_key', 'in', part)
      .execute();
    for (const r of rows) found.add(r.idempotency_key);
  }
  return found;
}

/** Which of `usernames` name a reseller of the tenant (deleted ones included: the name is taken). */
export async function existingUsernames(
  db: Db,
  clientId: string,
  usernames: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(usernames, IDS_PER_STATEMENT)) {
    const rows = await db
      .selectFrom('resellers')
      .select('username')
      .where('client_id', '=', clientId)
      .where('username', 'in', part)
      .execute();
    for (const r of rows) found.add(r.username);
  }
  return found;
}
