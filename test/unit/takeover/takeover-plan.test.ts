// Pure takeover rules: username normalisation, the opening balance of the lost movements, keys,
// skips, and the replay guard against overdrawing.
import { expect } from 'chai';
import {
  groupTags,
  planAccount,
  planAccounts,
  purchases,
  runningBalances,
  type RouterAccount,
} from '../../../controller/modules/takeover/plan.js';

const SERIAL = 'HEX4A1B2C3D';

function account(overrides: Partial<RouterAccount> = {}): RouterAccount {
  return {
    name: 'Awa',
    balance: 20000,
    commission_rate: 10,
    created_on: '2026-06-23',
    disabled: false,
    movements: [],
    warnings: [],
    ...overrides,
  };
}

const mv = (
  id: string,
  amount: number,
  kind = 'recharge',
  at: string | null = '2026-07-01T10:00:00.000Z',
) => ({
  id,
  amount,
  kind,
  at,
});

describe('takeover plan', () => {
  it('normalises the username and keeps identity, commission, suspension and creation date', () => {
    const result = planAccount(
      account({ name: 'FATOU ', first_name: 'Fatou', phone: '70 88', disabled: true, commission_rate: 7.5 }),
      SERIAL,
    );
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.plan.username).to.equal('fatou');
    expect(result.plan.routerName).to.equal('FATOU ');
    expect(result.plan.identity).to.deep.equal({
      first_name: 'Fatou',
      last_name: null,
      phone: '70 88',
      email: null,
      commission_rate: 7.5,
      disabled: true,
      created_on_router_at: '2026-06-23T00:00:00.000Z',
    });
  });

  it('writes no opening line when the kept movements explain the whole balance', () => {
    const result = planAccount(
      account({ balance: 5500, movements: [mv('txn_1_a', 10000), mv('txn_2_b', -4500, 'achat')] }),
      SERIAL,
    );
    if (!result.ok) throw new Error('skipped');
    expect(result.plan.opening).to.equal(0);
    expect(result.plan.openingLine).to.equal(null);
    expect(result.plan.movements.map((m) => [m.key, m.type, m.amount])).to.deep.equal([
      ['txn_1_a', 'IMPORT', 10000],
      ['txn_2_b', 'IMPORT', -4500],
    ]);
  });

  it('opens with what the lost movements left, keyed by the router serial and dated with the oldest kept one', () => {
    const result = planAccount(
      account({ balance: 20000, movements: [mv('txn_1_a', -4500, 'achat'), mv('txn_2_b', 10000)] }),
      SERIAL,
    );
    if (!result.ok) throw new Error('skipped');
    expect(result.plan.opening).to.equal(14500);
    expect(result.plan.openingLine).to.include({
      key: `opening:${SERIAL}`,
      type: 'OPENING',
      amount: 14500,
      at: '2026-07-01T10:00:00.000Z',
    });
    const lines = [result.plan.openingLine!, ...result.plan.movements];
    expect(lines.reduce((s, l) => s + l.amount, 0)).to.equal(20000);
  });

  it('opens an account without movements with its whole balance, dated on its creation day', () => {
    const result = planAccount(account({ balance: 3000, movements: [] }), SERIAL);
    if (!result.ok) throw new Error('skipped');
    expect(result.plan.openingLine).to.include({ amount: 3000, at: '2026-06-23T00:00:00.000Z' });
  });

  it('imports movements that exceed the balance with a warning instead of inventing history', () => {
    const result = planAccount(account({ balance: 1000, movements: [mv('txn_1_a', 5000)] }), SERIAL);
    if (!result.ok) throw new Error('skipped');
    expect(result.plan.opening).to.equal(-4000);
    expect(result.plan.warnings.join()).to.match(/exceed its balance/);
  });

  it('names the purchases that count in total_sales (debits of kind achat only)', () => {
    const result = planAccount(
      account({
        balance: 4000,
        movements: [
          mv('txn_1_a', 10000),
          mv('txn_2_b', -4500, 'achat'),
          mv('txn_3_c', -500, 'correction'),
          mv('txn_4_d', -1000, 'achat'),
        ],
      }),
      SERIAL,
    );
    if (!result.ok) throw new Error('skipped');
    expect(purchases(result.plan.movements)).to.equal(5500);
    expect(result.plan.movements[1]!.reason).to.equal('router achat');
  });

  const skips: [string, Partial<RouterAccount>, string][] = [
    ['no balance', { balance: null }, 'NO_BALANCE'],
    ['a negative balance', { balance: -5 }, 'NEGATIVE_BALANCE'],
    ['a name that cannot be a username', { name: 'a/b' }, 'INVALID_USERNAME'],
    ['a name of only spaces', { name: '   ' }, 'INVALID_USERNAME'],
  ];
  for (const [what, overrides, reason] of skips) {
    it(`skips an account with ${what} (${reason})`, () => {
      const result = planAccount(account(overrides), SERIAL);
      expect(result.ok).to.equal(false);
      if (!result.ok) expect(result.reason).to.equal(reason);
    });
  }

  it('accepts accented names as they normalise', () => {
    const result = planAccount(account({ name: 'Aïssatou Ba' }), SERIAL);
    expect(result.ok && result.plan.username).to.equal('aïssatouba');
  });

  it('skips the second of two accounts that normalise to the same username', () => {
    const results = planAccounts([account({ name: 'Awa' }), account({ name: 'awa ' })], SERIAL);
    expect(results[0]!.ok).to.equal(true);
    expect(results[1]).to.include({ ok: false, reason: 'DUPLICATE_USERNAME', username: 'awa' });
  });

  it('warns when u= names another login than the account', () => {
    const result = planAccount(account({ name: 'awa', login: 'awa2' }), SERIAL);
    expect(result.ok && result.plan.warnings.join()).to.match(/u=awa2 differs/);
  });

  it('refuses a replay whose new movements would take the balance below zero at any point', () => {
    const line = (amount: number) => ({
      key: 'k',
      type: 'IMPORT' as const,
      amount,
      reason: '',
      at: null,
      purchase: false,
    });
    expect(runningBalances(1000, [line(-500), line(200)])).to.deep.equal([500, 700]);
    expect(runningBalances(1000, [line(-1500), line(5000)])).to.equal(undefined);
    expect(runningBalances(0, [])).to.deep.equal([]);
  });

  it('groups tags as reseller names compare (lowercased, without spaces)', () => {
    const grouped = groupTags([
      { name: 'khady', count: 2 },
      { name: 'Khady', count: 1 },
      { name: 'cheikh tidiane', count: 3 },
      { name: 'Gérant', count: 1 },
    ]);
    expect([...grouped]).to.deep.equal([
      ['khady', 3],
      ['cheikhtidiane', 3],
      ['gérant', 1],
    ]);
  });
});
