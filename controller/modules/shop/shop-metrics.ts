// The shop metrics: sales and accounting per period read from the daily totals (at most a month
// of rows) and the wallet's running totals, never summed from the sales themselves.
import { iso } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import { withdrawalStatus, type WithdrawalStatusView } from './payout.js';
import { periodStarts } from './periods.js';
import * as w from './wallet-queries.js';

export type Period = { count: number; amount: number };
export type Accounting = {
  gross: number;
  platform_collected: number;
  merchant_collected: number;
  withdrawn: number;
};

export interface ShopMetrics {
  sales: Record<'day' | 'week' | 'month' | 'total', Period>;
  balance: { available: number; pending: number };
  accounting: Record<'day' | 'week' | 'month' | 'total', Accounting>;
  withdrawal_status: WithdrawalStatusView;
}

export async function readMetrics(db: Db, now: Date, clientId: string): Promise<ShopMetrics> {
  const wallet = (await w.findWallet(db, clientId)) ?? w.emptyWallet(clientId, iso(now));
  const starts = periodStarts(now);
  const { day, week, month } = await w.sumPeriods(db, clientId, starts);
  const total: w.DailyDelta = {
    sales_count: Number(wallet.sales_count),
    gross_xof: Number(wallet.gross_xof),
    platform_xof: Number(wallet.platform_xof),
    merchant_xof: Number(wallet.merchant_xof),
    withdrawn_xof: Number(wallet.withdrawn_xof),
  };
  const periods = { day, week, month, total };
  const map = <T>(f: (d: w.DailyDelta) => T) =>
    Object.fromEntries(Object.entries(periods).map(([k, d]) => [k, f(d)])) as Record<keyof typeof periods, T>;
  return {
    sales: map((d) => ({ count: d.sales_count, amount: d.gross_xof })),
    balance: { available: Number(wallet.available_xof), pending: Number(wallet.pending_xof) },
    accounting: map((d) => ({
      gross: d.gross_xof,
      platform_collected: d.platform_xof,
      merchant_collected: d.merchant_xof,
      withdrawn: d.withdrawn_xof,
    })),
    withdrawal_status: withdrawalStatus(wallet),
  };
}
