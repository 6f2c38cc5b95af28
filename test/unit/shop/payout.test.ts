// Payout mode, withdrawal status and withdrawal refusals as tables.
import { expect } from 'chai';
import {
  DIRECT_COLLECTION_BADGE,
  MINIMUM_WITHDRAWAL_XOF as MIN,
  payoutMode,
  withdrawalRefusal,
  withdrawalStatus,
  type WalletFacts,
} from '../../../controller/modules/shop/payout.js';

const wallet = (over: Partial<WalletFacts> = {}): WalletFacts => ({
  available_xof: 0,
  pending_xof: 0,
  sales_count: 0,
  last_collected_by: null,
  payout_provider: null,
  payout_dashboard_url: null,
  withdrawals_enabled: 1,
  ...over,
});

describe('shop payout rules', () => {
  const MODES: [string, Partial<WalletFacts>, string][] = [
    ['no sale', {}, 'NONE'],
    [
      'platform sale, money left',
      { sales_count: 1, available_xof: 100, last_collected_by: 'PLATFORM' },
      'PLATFORM',
    ],
    ['merchant sale only', { sales_count: 1, last_collected_by: 'MERCHANT' }, 'MERCHANT'],
    [
      'switched to merchant, platform money available',
      { sales_count: 2, available_xof: 10, last_collected_by: 'MERCHANT' },
      'PLATFORM',
    ],
    [
      'switched to merchant, platform money pending',
      { sales_count: 2, pending_xof: 10, last_collected_by: 'MERCHANT' },
      'PLATFORM',
    ],
    ['platform sale, all paid out', { sales_count: 1, last_collected_by: 'PLATFORM' }, 'PLATFORM'],
  ];
  for (const [name, over, mode] of MODES)
    it(`mode: ${name} → ${mode}`, () => expect(payoutMode(wallet(over))).to.equal(mode));

  it('badge and link: provider null gives the direct-collection badge, url null no link', () => {
    const direct = withdrawalStatus(wallet({ sales_count: 1, last_collected_by: 'MERCHANT' }));
    expect(direct).to.include({
      payout_badge: DIRECT_COLLECTION_BADGE,
      payout_provider: null,
      payout_dashboard_url: null,
      can_request_withdrawal: false,
    });
    const named = withdrawalStatus(
      wallet({
        sales_count: 1,
        last_collected_by: 'MERCHANT',
        payout_provider: 'cinetpay',
        payout_dashboard_url: 'https://x.example',
      }),
    );
    expect(named).to.include({ payout_badge: 'cinetpay', payout_dashboard_url: 'https://x.example' });
  });

  const REFUSALS: [string, Partial<WalletFacts>, number, string | null][] = [
    ['frozen', { withdrawals_enabled: 0, sales_count: 1, available_xof: 9000 }, MIN, 'WITHDRAWALS_DISABLED'],
    ['merchant', { sales_count: 1, last_collected_by: 'MERCHANT' }, MIN, 'WITHDRAWAL_MERCHANT_ACCOUNT'],
    ['balance under the minimum', { sales_count: 1, available_xof: MIN - 1 }, MIN - 1, 'INSUFFICIENT_FUNDS'],
    ['over the balance', { sales_count: 1, available_xof: MIN }, MIN + 1, 'INSUFFICIENT_FUNDS'],
    ['no sale yet', {}, MIN, 'INSUFFICIENT_FUNDS'],
    ['amount under the minimum', { sales_count: 1, available_xof: 3 * MIN }, MIN - 1, 'VALIDATION_ERROR'],
    ['exactly the minimum', { sales_count: 1, available_xof: MIN }, MIN, null],
    ['the whole balance', { sales_count: 1, available_xof: 3 * MIN }, 3 * MIN, null],
  ];
  for (const [name, over, amount, code] of REFUSALS) {
    it(`withdrawal: ${name} → ${code ?? 'accepted'}`, () => {
      expect(withdrawalRefusal(wallet(over), amount)?.code ?? null).to.equal(code);
      if (code === null) expect(withdrawalStatus(wallet(over)).can_request_withdrawal).to.equal(true);
    });
  }
});
