// Statements on the shop wallet, its ledger, sales, daily totals and withdrawals. Balance changes
// are single conditional UPDATEs answering the new balance, so concurrent writers never overdraw.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type {
  Collector,
  ShopLedgerTable,
  ShopSalesTable,
  ShopWalletsTable,
  ShopWithdrawalsTable,
} from './tables.js';

export const emptyWallet = (clientId: string, now: string): ShopWalletsTable => ({
  client_id: clientId,
  available_xof: 0,
  pending_xof: 0,
  sales_count: 0,
  gross_xof: 0,
  platform_xof: 0,
  merchant_xof: 0,
  withdrawn_xof: 0,
  last_collected_by: null,
  payout_provider: null,
  payout_dashboard_url: null,
  withdrawals_enabled: 1,
  updated_at: now,
});

export const ensureWallet = (db: Db, clientId: string, now: string) =>
  db
    .insertInto('shop_wallets')
    .values(emptyWallet(clientId, now))
    .onConflict((oc) => oc.column('client_id').doNothing())
    .execute();

export const findWallet = (db: Db, clientId: string, forUpdate = false) => {
  const q = db.selectFrom('shop_wallets').selectAll().where('client_id', '=', clientId);
  return (forUpdate ? q.forUpdate() : q).executeTakeFirst();
};

export interface SaleCredit {
  amount: number;
  collectedBy: Collector;
  provider: string | null;
  dashboardUrl: string | null;
  now: string;
}

/** Counts a sale in the wallet; platform-collected money is credited. Answers the new available balance. */
export const creditSale = async (db: Db, clientId: string, c: SaleCredit): Promise<number> => {
  const platform = c.collectedBy === 'PLATFORM' ? c.amount : 0;
  const merchant = c.amount - platform;
  const row = await db
    .updateTable('shop_wallets')
    .set((eb) => ({
      available_xof: eb('available_xof', '+', platform),
      sales_count: eb('sales_count', '+', 1),
      gross_xof: eb('gross_xof', '+', c.amount),
      platform_xof: eb('platform_xof', '+', platform),
      merchant_xof: eb('merchant_xof', '+', merchant),
      last_collected_by: c.collectedBy,
      ...(c.collectedBy === 'MERCHANT'
        ? { payout_provider: c.provider, payout_dashboard_url: c.dashboardUrl }
        : {}),
      updated_at: c.now,
    }))
    .where('client_id', '=', clientId)
    .returning('available_xof')
    .executeTakeFirstOrThrow();
  return Number(row.available_xof);
};

/** Moves `amount` from available to pending when available covers it; null when it does not. */
export const reserveWithdrawal = async (
  db: Db,
  clientId: string,
  amount: number,
  now: string,
): Promise<number | null> => {
  const row = await db
    .updateTable('shop_wallets')
    .set((eb) => ({
      available_xof: eb('available_xof', '-', amount),
      pending_xof: eb('pending_xof', '+', amount),
      withdrawn_xof: eb('withdrawn_xof', '+', amount),
      updated_at: now,
    }))
    .where('client_id', '=', clientId)
    .where('available_xof', '>=', amount)
    .returning('available_xof')
    .executeTakeFirst();
  return row ? Number(row.available_xof) : null;
};

export const setWithdrawalsEnabled = (db: Db, clientId: string, enabled: boolean, now: string) =>
  db
    .updateTable('shop_wallets')
    .set({ withdrawals_enabled: enabled ? 1 : 0, updated_at: now })
    .where('client_id', '=', clientId)
    .execute();

// --- ledger ---

export const insertLedgerLine = (db: Db, row: ShopLedgerTable) =>
  db.insertInto('shop_ledger').values(row).execute();

export const ledgerSum = async (db: Db, clientId: string): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('shop_ledger')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('total'))
        .where('client_id', '=', clientId)
        .executeTakeFirst()
    )?.total ?? 0,
  );

// --- sales ---

/** Inserts the sale unless its reference is known; true when this call inserted it. */
export const insertSale = async (db: Db, row: ShopSalesTable): Promise<boolean> => {
  const res = await db
    .insertInto('shop_sales')
    .values(row)
    .onConflict((oc) => oc.columns(['client_id', 'reference']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
};

export const findSale = (db: Db, clientId: string, reference: string) =>
  db
    .selectFrom('shop_sales')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('reference', '=', reference)
    .executeTakeFirst();

export const setSaleTicket = (db: Db, id: string, ticketCode: string) =>
  db.updateTable('shop_sales').set({ ticket_code: ticketCode }).where('id', '=', id).execute();

// --- daily totals ---

export interface DailyDelta {
  sales_count: number;
  gross_xof: number;
  platform_xof: number;
  merchant_xof: number;
  withdrawn_xof: number;
}

const DAILY_COLUMNS = ['sales_count', 'gross_xof', 'platform_xof', 'merchant_xof', 'withdrawn_xof'] as const;

export const addToDay = (db: Db, clientId: string, day: string, delta: DailyDelta) =>
  db
    .insertInto('shop_daily_totals')
    .values({ client_id: clientId, day, ...delta })
    .onConflict((oc) =>
      oc
        .columns(['client_id', 'day'])
        .doUpdateSet(
          Object.fromEntries(
            DAILY_COLUMNS.map((c) => [c, sql`shop_daily_totals.${sql.ref(c)} + excluded.${sql.ref(c)}`]),
          ),
        ),
    )
    .execute();

/**
 * The daily totals summed over each period in one statement: the rows from the earliest start on
 * (a week may start in the previous month), at most 37 of them, read through the primary key.
 */
export const sumPeriods = async <P extends string>(
  db: Db,
  clientId: string,
  starts: Record<P, string>,
): Promise<Record<P, DailyDelta>> => {
  const periods = Object.entries(starts) as [P, string][];
  const from = periods.map(([, day]) => day).sort()[0]!;
  const row = (await db
    .selectFrom('shop_daily_totals')
    .select((eb) =>
      periods.flatMap(([p, day]) =>
        DAILY_COLUMNS.map((c) =>
          eb.fn
            .coalesce(
              eb.fn.sum<number>(eb.case().when('day', '>=', day).then(eb.ref(c)).else(0).end()),
              eb.lit(0),
            )
            .as(`${p}__${c}`),
        ),
      ),
    )
    .where('client_id', '=', clientId)
    .where('day', '>=', from)
    .executeTakeFirst()) as Record<string, number | string> | undefined;
  return Object.fromEntries(
    periods.map(([p]) => [
      p,
      Object.fromEntries(DAILY_COLUMNS.map((c) => [c, Number(row?.[`${p}__${c}`] ?? 0)])),
    ]),
  ) as unknown as Record<P, DailyDelta>;
};

// --- withdrawals ---

export const insertWithdrawal = (db: Db, row: ShopWithdrawalsTable) =>
  db.insertInto('shop_withdrawals').values(row).execute();

export const findWithdrawal = (db: Db, clientId: string, key: string) =>
  db
    .selectFrom('shop_withdrawals')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
