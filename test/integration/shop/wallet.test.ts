// The shop wallet: sales recorded through the service (the payment path's entry), metrics in every
// payout mode, withdrawals (idempotent, refused per mode, never an overdraft), ledger = balance.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';
import type { SaleInput } from '../../../controller/modules/shop/index.js';

const METRICS = '/api/v1/store/ticketshop/metrics';
const WITHDRAW = '/api/v1/store/ticketshop/withdrawals';

forEachDatabase('shop wallet, metrics and withdrawals', (database) => {
  let t: TestController;
  let client: { token: string; id: string };
  beforeEach(async () => {
    t = await startTestController(database);
    client = await t.account('client');
  });
  // Ledger = available balance, never negative, for every wallet after every test.
  afterEach(async () => {
    const wallets = await t.db.db.selectFrom('shop_wallets').select('client_id').execute();
    for (const w of wallets) {
      const check = await t.controller.services.shop.wallet.ledgerCheck(w.client_id);
      expect(check.ledger_sum).to.equal(check.available);
      expect(check.available).to.be.at.least(0);
    }
    await t.close();
  });

  const sale = (input: Partial<SaleInput> & { reference: string }, clientId = client.id) =>
    t.controller.services.shop.recordSale(clientId, { amountXof: 1000, collectedBy: 'PLATFORM', ...input });
  const metrics = async (token = client.token) => {
    const res = await t.request('GET', METRICS, { token });
    expect(res.status).to.equal(200);
    return res.body.data;
  };
  const withdraw = (key: string | null, body: unknown = {}, token = client.token) =>
    t.request('POST', WITHDRAW, {
      token,
      body,
      ...(key === null ? {} : { headers: { 'idempotency-key': key } }),
    });

  it('NONE before a sale, PLATFORM after one; a sale is recorded once per reference', async () => {
    let m = await metrics();
    expect(m.withdrawal_status).to.deep.include({
      payout_mode: 'NONE',
      available_balance: 0,
      pending_balance: 0,
      withdrawals_enabled: true,
      can_request_withdrawal: false,
      payout_provider: null,
      payout_dashboard_url: null,
    });
    expect(m.sales.total).to.deep.equal({ count: 0, amount: 0 });

    const first = await sale({ reference: 'pay-1', amountXof: 3000 });
    expect(first).to.include({ replayed: false, amount: 3000, ticket_code: null });
    const again = await sale({ reference: 'pay-1', amountXof: 3000 });
    expect(again).to.include({ replayed: true, sale_id: first.sale_id });
    let reused: unknown;
    try {
      await sale({ reference: 'pay-1', amountXof: 10 });
    } catch (err) {
      reused = err;
    }
    expect(reused).to.have.property('code', 'IDEMPOTENCY_KEY_REUSED');
    for (const bad of [
      { amountXof: 0 },
      { amountXof: 1.5 },
      { reference: '' },
      { collectedBy: 'BANK' as never },
    ]) {
      let refused: unknown;
      try {
        await sale({ reference: 'pay-bad', ...bad });
      } catch (err) {
        refused = err;
      }
      expect(refused, JSON.stringify(bad)).to.have.property('code', 'VALIDATION_ERROR');
    }

    m = await metrics();
    expect(m.withdrawal_status).to.deep.include({
      payout_mode: 'PLATFORM',
      available_balance: 3000,
      can_request_withdrawal: false,
    });
    expect(m.balance).to.deep.equal({ available: 3000, pending: 0 });
    expect(m.sales.day).to.deep.equal({ count: 1, amount: 3000 });
    expect(m.accounting.total).to.deep.equal({
      gross: 3000,
      platform_collected: 3000,
      merchant_collected: 0,
      withdrawn: 0,
    });
    const ledger = await t.db.db
      .selectFrom('shop_ledger')
      .selectAll()
      .where('client_id', '=', client.id)
      .execute();
    expect(
      ledger.map((l) => [l.type, Number(l.amount), Number(l.balance_after), l.idempotency_key]),
    ).to.deep.equal([['SALE', 3000, 3000, 'sale:pay-1']]);
    // Another tenant sees nothing of it.
    const other = await t.account('client');
    expect((await metrics(other.token)).withdrawal_status.payout_mode).to.equal('NONE');
  });

  it('MERCHANT when sales reach the aggregator: badge, notice, link; a withdrawal is refused', async () => {
    await sale({ reference: 'm-1', collectedBy: 'MERCHANT' });
    let m = await metrics();
    expect(m.withdrawal_status).to.deep.include({
      payout_mode: 'MERCHANT',
      payout_provider: null,
      payout_badge: 'Encaissement direct',
      payout_dashboard_url: null,
      can_request_withdrawal: false,
      available_balance: 0,
    });
    expect(m.sales.total).to.deep.equal({ count: 1, amount: 1000 });
    expect(m.accounting.total.merchant_collected).to.equal(1000);
    await sale({
      reference: 'm-2',
      collectedBy: 'MERCHANT',
      provider: 'paydunya',
      dashboardUrl: 'https://app.paydunya.com',
    });
    m = await metrics();
    expect(m.withdrawal_status).to.deep.include({
      payout_provider: 'paydunya',
      payout_badge: 'paydunya',
      payout_dashboard_url: 'https://app.paydunya.com',
    });
    expect(m.withdrawal_status.payout_notice).to.include('paydunya');
    const res = await withdraw('w-1', {});
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('WITHDRAWAL_MERCHANT_ACCOUNT');
    expect(await t.db.db.selectFrom('shop_withdrawals').selectAll().execute()).to.have.length(0);

    // A seller with platform-collected money left stays PLATFORM, whatever collected the latest sale.
    const other = await t.account('client');
    await sale({ reference: 'p-1', amountXof: 8000 }, other.id);
    await sale({ reference: 'm-3', collectedBy: 'MERCHANT', provider: 'wave' }, other.id);
    const om = await metrics(other.token);
    expect(om.withdrawal_status).to.deep.include({
      payout_mode: 'PLATFORM',
      payout_provider: null,
      can_request_withdrawal: true,
    });
    expect(om.sales.total).to.deep.equal({ count: 2, amount: 9000 });
  });

  it('withdraws in PLATFORM mode: under the minimum INSUFFICIENT_FUNDS, accepted moves available to pending, replays answer the same', async () => {
    await sale({ reference: 'p-1', amountXof: 4000 });
    let res = await withdraw('w-1');
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('INSUFFICIENT_FUNDS');
    await sale({ reference: 'p-2', amountXof: 8000 });

    // Bad input: nothing changes.
    for (const [key, body] of [
      [null, {}],
      ['', {}],
      ['k'.repeat(129), {}],
      ['w-bad', { amount: 0 }],
      ['w-bad', { amount: 12.5 }],
      ['w-bad', { amount: '6000' }],
      ['w-bad', { amount: 6000, to: 'x' }],
      ['w-bad', { amount: 4999 }],
    ] as const) {
      res = await withdraw(key, body);
      expect(res.status, JSON.stringify([key, body])).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    }
    res = await withdraw('w-big', { amount: 12_001 });
    expect(res.body.error.code).to.equal('INSUFFICIENT_FUNDS');
    expect((await metrics()).balance).to.deep.equal({ available: 12_000, pending: 0 });

    res = await withdraw('w-2', { amount: 7000 });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data.withdrawal).to.include({ amount: 7000, status: 'PENDING' });
    expect(res.body.data.withdrawal_status).to.include({
      available_balance: 5000,
      pending_balance: 7000,
      payout_mode: 'PLATFORM',
    });
    const replay = await withdraw('w-2', { amount: 7000 });
    expect(replay.status).to.equal(200);
    expect(replay.body.data).to.deep.include({ replayed: true });
    expect(replay.body.data.withdrawal.id).to.equal(res.body.data.withdrawal.id);
    const reused = await withdraw('w-2', { amount: 5000 });
    expect(reused.status).to.equal(409);
    expect(reused.body.error.code).to.equal('IDEMPOTENCY_KEY_REUSED');

    // Absent amount: the whole available balance.
    res = await withdraw('w-3');
    expect(res.status).to.equal(201);
    expect(res.body.data.withdrawal.amount).to.equal(5000);
    const m = await metrics();
    expect(m.balance).to.deep.equal({ available: 0, pending: 12_000 });
    expect(m.accounting.day.withdrawn).to.equal(12_000);
    // Platform money remains (pending): still PLATFORM.
    expect(m.withdrawal_status.payout_mode).to.equal('PLATFORM');
  });

  it('an administrator freezes withdrawals; other tenants and bad ids are refused', async () => {
    await sale({ reference: 'p-1', amountXof: 9000 });
    const admin = await t.admin();
    const freeze = (body: unknown, id = client.id, token = admin.token) =>
      t.request('PUT', `/api/v1/admin/shop/${id}/withdrawals`, { token, body });
    let res = await freeze({ withdrawals_enabled: false });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.include({ withdrawals_enabled: false, can_request_withdrawal: false });
    res = await withdraw('w-1');
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('WITHDRAWALS_DISABLED');
    expect((await freeze({ withdrawals_enabled: 'no' })).status).to.equal(400);
    expect((await freeze({ withdrawals_enabled: true }, 'not-a-uuid')).status).to.equal(400);
    expect(
      (await freeze({ withdrawals_enabled: true }, '0190a1b2-0000-7000-8000-000000000000')).status,
    ).to.equal(404);
    expect((await freeze({ withdrawals_enabled: true }, client.id, client.token)).status).to.equal(403);
    expect((await metrics()).withdrawal_status.withdrawals_enabled).to.equal(false);
    await freeze({ withdrawals_enabled: true });
    expect((await withdraw('w-1')).status).to.equal(201);
  });

  it('concurrent withdrawals never overdraw: ledger = balance', async () => {
    await sale({ reference: 'p-1', amountXof: 12_000 });
    await sale({ reference: 'p-2', amountXof: 8_000 });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => withdraw(`c-${i}`, { amount: 5000 })),
    );
    const codes = results.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 201)).to.have.length(4);
    expect(
      results.filter((r) => r.status !== 201).every((r) => r.body.error.code === 'INSUFFICIENT_FUNDS'),
    ).to.equal(true);
    expect((await metrics()).balance).to.deep.equal({ available: 0, pending: 20_000 });
    const lines = await t.db.db
      .selectFrom('shop_ledger')
      .selectAll()
      .where('client_id', '=', client.id)
      .orderBy('id')
      .execute();
    expect(lines.filter((l) => l.type === 'WITHDRAWAL')).to.have.length(4);
    // Each line's balance_after follows from the one before.
    let balance = 0;
    for (const l of lines) {
      balance += Number(l.amount);
      expect(Number(l.balance_after)).to.equal(balance);
    }
  });

  it('sums the day, the week and the month from the clock', async () => {
    // START_TIME is Saturday 2026-11-21.
    await sale({ reference: 'sat', amountXof: 1000 });
    t.clock.set(new Date('2026-11-23T10:00:00.000Z')); // Monday: a new week
    await sale({ reference: 'mon', amountXof: 2000 });
    const fresh = await t.account('client');
    await sale({ reference: 'x', amountXof: 500 }, fresh.id);
    const m = await metrics();
    expect(m.sales.day).to.deep.equal({ count: 1, amount: 2000 });
    expect(m.sales.week).to.deep.equal({ count: 1, amount: 2000 });
    expect(m.sales.month).to.deep.equal({ count: 2, amount: 3000 });
    expect(m.sales.total).to.deep.equal({ count: 2, amount: 3000 });
    const counts = async () => {
      const x = await metrics();
      return [x.sales.day.count, x.sales.week.count, x.sales.month.count, x.sales.total.count];
    };
    t.clock.set(new Date('2026-11-29T23:59:59.000Z')); // Sunday: same week
    expect(await counts()).to.deep.equal([0, 1, 2, 2]);
    t.clock.set(new Date('2026-12-01T00:00:00.000Z')); // Tuesday of the next week, a new month
    expect(await counts()).to.deep.equal([0, 0, 0, 2]);
  });
});
