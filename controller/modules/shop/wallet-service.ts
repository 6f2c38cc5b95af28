// The shop wallet: integer XOF, one ledger line per change of the available balance in the same
// transaction, never below zero. Sales are recorded here by the payment path (recordSale), the
// seller withdraws through the withdrawal route, metrics read the maintained totals.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import type { TicketsService } from '../tickets/index.js';
import { withdrawalRefusal, withdrawalStatus, type WithdrawalStatusView } from './payout.js';
import { utcDay } from './periods.js';
import { readMetrics, type ShopMetrics } from './shop-metrics.js';
import { sellableStock } from './catalogue-service.js';
import * as q from './queries.js';
import type { Collector, ShopSalesTable, ShopWithdrawalsTable } from './tables.js';
import * as w from './wallet-queries.js';

export interface SaleInput {
  /** The payment's reference: a second call with it records nothing more. */
  reference: string;
  amountXof: number;
  /** PLATFORM: the platform collected the money (credited here); MERCHANT: the seller's aggregator did. */
  collectedBy: Collector;
  /** The seller's aggregator (a slug) and its dashboard, for MERCHANT sales. */
  provider?: string | null;
  dashboardUrl?: string | null;
  /** The catalogue entry sold: one of its stock tickets is taken when there is one. */
  profileName?: string | null;
}

export interface SaleRecord {
  sale_id: string;
  reference: string;
  amount: number;
  collected_by: Collector;
  /** The stock ticket delivered; null when none was in stock (made elsewhere). */
  ticket_code: string | null;
  replayed: boolean;
}

export interface WithdrawalView {
  id: string;
  amount: number;
  status: string;
  requested_at: string;
}

const REFERENCE = /^[\x21-\x7e]{1,128}$/;

const reused = () =>
  new AppError('IDEMPOTENCY_KEY_REUSED', 'This reference was already used for another operation');

const withdrawalView = (r: ShopWithdrawalsTable): WithdrawalView => ({
  id: r.id,
  amount: Number(r.amount_xof),
  status: r.status,
  requested_at: r.requested_at,
});

export class ShopWallet {
  constructor(
    private readonly db: Db,
    private readonly caps: DialectCapabilities,
    private readonly clock: Clock,
    private readonly tickets: Pick<TicketsService, 'sellableCodes'>,
  ) {}

  /** Records one successful sale and credits platform-collected money; idempotent by reference. */
  async recordSale(clientId: string, input: SaleInput): Promise<SaleRecord> {
    if (!REFERENCE.test(input.reference))
      throw new AppError('VALIDATION_ERROR', 'reference must hold 1 to 128 printable characters');
    if (!Number.isSafeInteger(input.amountXof) || input.amountXof < 1) {
      throw new AppError('VALIDATION_ERROR', 'amount must be a positive whole number of XOF');
    }
    if (input.collectedBy !== 'PLATFORM' && input.collectedBy !== 'MERCHANT') {
      throw new AppError('VALIDATION_ERROR', 'collectedBy must be PLATFORM or MERCHANT');
    }
    const now = this.clock.now();
    const at = iso(now);
    await w.ensureWallet(this.db, clientId, at);
    return this.db.transaction().execute(async (trx) => {
      const sale: ShopSalesTable = {
        id: newId(),
        client_id: clientId,
        reference: input.reference,
        amount_xof: input.amountXof,
        collected_by: input.collectedBy,
        provider: input.provider ?? null,
        profile_name: input.profileName ?? null,
        ticket_code: null,
        sold_at: at,
      };
      if (!(await w.insertSale(trx, sale))) {
        const known = (await w.findSale(trx, clientId, input.reference))!;
        if (Number(known.amount_xof) !== input.amountXof || known.collected_by !== input.collectedBy)
          throw reused();
        return { ...saleRecord(known), replayed: true };
      }
      if (input.profileName)
        sale.ticket_code = await this.#takeStock(trx, clientId, input.profileName, sale.reference, at);
      if (sale.ticket_code) await w.setSaleTicket(trx, sale.id, sale.ticket_code);
      const balance = await w.creditSale(trx, clientId, {
        amount: input.amountXof,
        collectedBy: input.collectedBy,
        provider: input.provider ?? null,
        dashboardUrl: input.dashboardUrl ?? null,
        now: at,
      });
      if (input.collectedBy === 'PLATFORM') {
        await w.insertLedgerLine(trx, {
          id: newId(),
          client_id: clientId,
          type: 'SALE',
          amount: input.amountXof,
          balance_after: balance,
          idempotency_key: `sale:${input.reference}`,
          created_at: at,
        });
      }
      const platform = input.collectedBy === 'PLATFORM' ? input.amountXof : 0;
      await w.addToDay(trx, clientId, utcDay(now), {
        sales_count: 1,
        gross_xof: input.amountXof,
        platform_xof: platform,
        merchant_xof: input.amountXof - platform,
        withdrawn_xof: 0,
      });
      return { ...saleRecord(sale), replayed: false };
    });
  }

  /**
   * Moves `amount` (default: the whole available balance) to pending, idempotent by `key`. The
   * wallet row is locked first, so concurrent requests are judged one after the other.
   */
  async requestWithdrawal(
    clientId: string,
    accountId: string,
    key: string,
    amount: number | undefined,
  ): Promise<{ withdrawal: WithdrawalView; replayed: boolean; status: WithdrawalStatusView }> {
    const at = iso(this.clock.now());
    await w.ensureWallet(this.db, clientId, at);
    return this.db.transaction().execute(async (trx) => {
      const wallet = (await w.findWallet(trx, clientId, this.caps.rowLocks))!;
      const known = await w.findWithdrawal(trx, clientId, key);
      if (known) {
        if (amount !== undefined && Number(known.amount_xof) !== amount) throw reused();
        return { withdrawal: withdrawalView(known), replayed: true, status: withdrawalStatus(wallet) };
      }
      const wanted = amount ?? Number(wallet.available_xof);
      const refusal = withdrawalRefusal(wallet, wanted);
      if (refusal) throw refusal;
      const balance = await w.reserveWithdrawal(trx, clientId, wanted, at);
      if (balance === null) throw withdrawalRefusal({ ...wallet, available_xof: 0 }, wanted)!;
      const row: ShopWithdrawalsTable = {
        id: newId(),
        client_id: clientId,
        idempotency_key: key,
        amount_xof: wanted,
        status: 'PENDING',
        requested_by: accountId,
        requested_at: at,
      };
      await w.insertWithdrawal(trx, row);
      await w.insertLedgerLine(trx, {
        id: newId(),
        client_id: clientId,
        type: 'WITHDRAWAL',
        amount: -wanted,
        balance_after: balance,
        idempotency_key: `withdrawal:${key}`,
        created_at: at,
      });
      await w.addToDay(trx, clientId, utcDay(this.clock.now()), {
        sales_count: 0,
        gross_xof: 0,
        platform_xof: 0,
        merchant_xof: 0,
        withdrawn_xof: wanted,
      });
      const after = (await w.findWallet(trx, clientId))!;
      return { withdrawal: withdrawalView(row), replayed: false, status: withdrawalStatus(after) };
    });
  }

  metrics(clientId: string): Promise<ShopMetrics> {
    return readMetrics(this.db, this.clock.now(), clientId);
  }

  /** The administrator's freeze (or thaw) of the tenant's withdrawals. */
  async setWithdrawalsEnabled(clientId: string, enabled: boolean): Promise<WithdrawalStatusView> {
    const at = iso(this.clock.now());
    await w.ensureWallet(this.db, clientId, at);
    await w.setWithdrawalsEnabled(this.db, clientId, enabled, at);
    return withdrawalStatus((await w.findWallet(this.db, clientId))!);
  }

  /** Sum of the ledger beside the available balance (they are equal, always). */
  async ledgerCheck(clientId: string): Promise<{ ledger_sum: number; available: number }> {
    const wallet = await w.findWallet(this.db, clientId);
    return {
      ledger_sum: await w.ledgerSum(this.db, clientId),
      available: Number(wallet?.available_xof ?? 0),
    };
  }

  // The oldest unsold ticket of the profile that a buyer may still be given (a disabled or
  // deleted one is skipped), marked sold in the sale's transaction; null when none.
  async #takeStock(trx: Db, clientId: string, profileName: string, reference: string, at: string) {
    for (const next of await sellableStock(this.tickets, trx, clientId, profileName))
      if ((await q.markSold(trx, clientId, next.id, reference, at)) === 1) return next.ticket_code;
    return null;
  }
}

const saleRecord = (s: ShopSalesTable): Omit<SaleRecord, 'replayed'> => ({
  sale_id: s.id,
  reference: s.reference,
  amount: Number(s.amount_xof),
  collected_by: s.collected_by,
  ticket_code: s.ticket_code,
});
