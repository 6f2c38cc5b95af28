// The shop wallet's payout mode and what the seller may do with it. Pure: the wallet row in, the
// `withdrawal_status` out, and the refusal of a withdrawal if any. Rules: docs/api/shop.md.
import { AppError } from '../../core/app-error.js';
import type { ShopWalletsTable } from './tables.js';

export type PayoutMode = 'PLATFORM' | 'MERCHANT' | 'NONE';

/** Smallest withdrawal, in XOF: below it a payout costs more than it carries. */
export const MINIMUM_WITHDRAWAL_XOF = 5000;

/** The badge shown when the seller's money is collected directly and no aggregator is known. */
export const DIRECT_COLLECTION_BADGE = 'Encaissement direct';

export type WalletFacts = Pick<
  ShopWalletsTable,
  | 'available_xof'
  | 'pending_xof'
  | 'sales_count'
  | 'last_collected_by'
  | 'payout_provider'
  | 'payout_dashboard_url'
  | 'withdrawals_enabled'
>;

export interface WithdrawalStatusView {
  available_balance: number;
  pending_balance: number;
  minimum_withdrawal: number;
  withdrawals_enabled: boolean;
  payout_mode: PayoutMode;
  can_request_withdrawal: boolean;
  payout_provider: string | null;
  payout_badge: string;
  payout_dashboard_url: string | null;
  payout_notice: string;
}

/**
 * NONE before any sale; PLATFORM while platform-collected money remains (available or pending),
 * whatever collected the latest sale; otherwise the collector of the latest sale.
 */
export function payoutMode(w: WalletFacts): PayoutMode {
  if (Number(w.sales_count) === 0) return 'NONE';
  if (Number(w.available_xof) + Number(w.pending_xof) > 0) return 'PLATFORM';
  return w.last_collected_by === 'MERCHANT' ? 'MERCHANT' : 'PLATFORM';
}

function notice(mode: PayoutMode, w: WalletFacts): string {
  if (mode === 'MERCHANT') {
    return w.payout_provider
      ? `Vos ventes sont versées directement sur votre compte ${w.payout_provider}.`
      : 'Vos ventes sont encaissées directement sur votre compte.';
  }
  if (!w.withdrawals_enabled) return "Les retraits sont suspendus par l'administrateur.";
  if (mode === 'NONE') return 'Aucune vente encore : votre solde apparaîtra ici.';
  return Number(w.available_xof) >= MINIMUM_WITHDRAWAL_XOF
    ? 'Votre solde est disponible au retrait.'
    : `Retrait possible à partir de ${MINIMUM_WITHDRAWAL_XOF} FCFA.`;
}

export function withdrawalStatus(w: WalletFacts): WithdrawalStatusView {
  const mode = payoutMode(w);
  const available = Number(w.available_xof);
  const enabled = Number(w.withdrawals_enabled) === 1;
  return {
    available_balance: available,
    pending_balance: Number(w.pending_xof),
    minimum_withdrawal: MINIMUM_WITHDRAWAL_XOF,
    withdrawals_enabled: enabled,
    payout_mode: mode,
    can_request_withdrawal: enabled && mode !== 'MERCHANT' && available >= MINIMUM_WITHDRAWAL_XOF,
    payout_provider: mode === 'MERCHANT' ? w.payout_provider : null,
    payout_badge:
      mode === 'MERCHANT' ? (w.payout_provider ?? DIRECT_COLLECTION_BADGE) : 'Retrait via la plateforme',
    payout_dashboard_url: mode === 'MERCHANT' ? w.payout_dashboard_url : null,
    payout_notice: notice(mode, { ...w, withdrawals_enabled: enabled ? 1 : 0 }),
  };
}

/**
 * Why a withdrawal of `amount` (XOF, already a positive integer) is refused, or null when it may
 * go: the administrator's freeze, MERCHANT mode, then the funds.
 */
export function withdrawalRefusal(w: WalletFacts, amount: number): AppError | null {
  if (Number(w.withdrawals_enabled) !== 1) {
    return new AppError('WITHDRAWALS_DISABLED', 'Withdrawals are suspended by the administrator');
  }
  if (payoutMode(w) === 'MERCHANT') {
    return new AppError(
      'WITHDRAWAL_MERCHANT_ACCOUNT',
      "Sales are paid to the seller's own payment account: there is nothing to withdraw here",
    );
  }
  const available = Number(w.available_xof);
  if (available < MINIMUM_WITHDRAWAL_XOF || amount > available) {
    return new AppError(
      'INSUFFICIENT_FUNDS',
      `Available balance ${available} XOF; a withdrawal needs at least ${MINIMUM_WITHDRAWAL_XOF} XOF and at most the balance`,
      { details: { available_balance: available, minimum_withdrawal: MINIMUM_WITHDRAWAL_XOF, amount } },
    );
  }
  if (amount < MINIMUM_WITHDRAWAL_XOF) {
    return new AppError('VALIDATION_ERROR', `A withdrawal is at least ${MINIMUM_WITHDRAWAL_XOF} XOF`, {
      details: [{ field: 'amount', message: `must be at least ${MINIMUM_WITHDRAWAL_XOF}` }],
    });
  }
  return null;
}
