// The limits the code declares: failed credentials per address (reseller tokens, account tokens,
// logins) and money actions per user, with the global quota covering /v1 routes too.
import { expect } from 'chai';
import { loadConfig, type Config } from '../../../controller/config.js';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

/** A quota as the config reads it back into its text form, so the tests run the shipped defaults. */
function asText(q: { limit: number; windowMs: number } | null): string {
  return q ? `${q.limit}/${q.windowMs / 1000}s` : 'off';
}
const DEFAULTS = loadConfig({});
const FAILURES = DEFAULTS.authFailureQuota!;
const MONEY = DEFAULTS.moneyQuota!;

forEachDatabase('quotas', (database) => {
  let t: TestController;
  let manager: { token: string; id: string };
  afterEach(async () => t?.close());

  async function start(overrides: Partial<Record<keyof Config, unknown>> = {}) {
    t = await startTestController(database, {
      authFailureQuota: asText(FAILURES),
      moneyQuota: asText(MONEY),
      ...overrides,
    });
    const admin = await t.admin();
    manager = await t.account('client');
    const licence = await t.request('POST', '/api/v1/admin/licences', {
      token: admin.token,
      body: { client_id: manager.id, plan_code: 'RADIUS_ANNUAL' },
    });
    expect(licence.status).to.equal(201);
    await t.controller.services.profiles.setProfile(manager.id, '1h-500F', { price_xof: 500 });
  }
  const v1 = (
    method: string,
    path: string,
    token?: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) =>
    t.request(method, `/v1/radius${path}`, {
      ...(token ? { token } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(headers ? { headers } : {}),
    });

  it(`answers 150 guessed reseller tokens with ${FAILURES.limit} × 401, then 429 with Retry-After`, async () => {
    await start({ trustProxy: true });
    expect((await v1('POST', '/resellers', manager.token, { username: 'awa' })).status).to.equal(201);
    const real = (await v1('POST', '/resellers/awa/token', manager.token)).body.token as string;
    const from = { 'x-forwarded-for': '198.51.100.7' };
    const counts: Record<number, number> = {};
    let retryAfter = 0;
    for (let i = 0; i < 150; i++) {
      // Guessed tokens shaped like real ones, on routes of both RADIUS families.
      const guess = `${real.slice(0, -6)}${String(i).padStart(6, '0')}`;
      const path = i % 2 === 0 ? '/v1/radius/resellers/self' : '/api/v1/radius/tickets';
      const res = await t.request('GET', path, { token: guess, headers: from });
      counts[res.status] = (counts[res.status] ?? 0) + 1;
      if (res.status === 429) {
        expect(res.body).to.include({ success: false, code: 'RATE_LIMITED' });
        retryAfter = Number(res.headers['retry-after']);
      } else expect(res.status, `guess ${i}`).to.equal(401);
    }
    console.log(`      150 guessed reseller tokens: ${counts[401] ?? 0} × 401, ${counts[429] ?? 0} × 429`);
    expect(counts).to.deep.equal({ 401: FAILURES.limit, 429: 150 - FAILURES.limit });
    expect(retryAfter).to.be.within(1, FAILURES.windowMs / 1000);

    // The address is held off even with the right token, until its window ends; others are not.
    expect((await v1('GET', '/resellers/self', real, undefined, from)).status).to.equal(429);
    const elsewhere = { 'x-forwarded-for': '203.0.113.9' };
    expect((await v1('GET', '/resellers/self', real, undefined, elsewhere)).status).to.equal(200);
    t.clock.advance(FAILURES.windowMs);
    expect((await v1('GET', '/resellers/self', real, undefined, from)).status).to.equal(200);
  });

  it('counts failed logins and wrong account tokens per address, not requests without a credential', async () => {
    await start();
    for (let i = 0; i < 5; i++)
      expect((await t.request('GET', '/api/v1/auth/me')).status, 'no token').to.equal(401);
    for (let i = 0; i < FAILURES.limit - 1; i++) {
      const res = await t.request('POST', '/api/v1/auth/login', {
        body: { email: 'nobody@example.com', password: `guess-${i}` },
      });
      expect(res.status).to.equal(401);
    }
    expect((await t.request('GET', '/api/v1/auth/me', { token: 'forged.jwt.token' })).status).to.equal(401);
    const login = await t.request('POST', '/api/v1/auth/login', {
      body: { email: 'nobody@example.com', password: 'one-more' },
    });
    expect(login.status).to.equal(429);
    expect(login.body.error.code).to.equal('RATE_LIMITED');
    expect(Number(login.headers['retry-after'])).to.be.within(1, FAILURES.windowMs / 1000);
  });

  it(`refuses money actions beyond ${MONEY.limit} per user with CLICK_SPAM_PROTECTION, writing nothing`, async () => {
    await start();
    // Creating the reseller is a money action of the manager too (its opening balance).
    expect((await v1('POST', '/resellers', manager.token, { username: 'awa' })).status).to.equal(201);
    let accepted = 1;
    for (;;) {
      const res = await v1('POST', '/resellers/awa/topup', manager.token, { amount: 1000 });
      if (res.status !== 200) {
        expect(res.status).to.equal(429);
        expect(res.body).to.include({ success: false, code: 'CLICK_SPAM_PROTECTION' });
        expect(Number(res.headers['retry-after'])).to.be.within(1, MONEY.windowMs / 1000);
        break;
      }
      accepted++;
      expect(accepted, 'never limited').to.be.at.most(MONEY.limit);
    }
    expect(accepted).to.equal(MONEY.limit);
    const ledger = async () =>
      (await v1('GET', '/resellers/awa/transactions', manager.token)).body.transactions;
    const before = await ledger();
    expect(before).to.have.length(MONEY.limit - 1);
    for (let i = 0; i < 10; i++) {
      const spam = await v1('POST', '/resellers/awa/topup', manager.token, { amount: 1000 });
      expect(spam.status).to.equal(429);
      const batch = await t.request('POST', '/api/v1/radius/tickets', {
        token: manager.token,
        body: { profile_id: '1h-500F', quantity: 1 },
      });
      expect(batch.status).to.equal(429);
    }
    expect(await ledger()).to.deep.equal(before);
    const check = await t.controller.services.resellers.ledgerCheck(manager.id, 'awa');
    expect(check).to.include({ balance: (MONEY.limit - 1) * 1000, ledger: (MONEY.limit - 1) * 1000 });

    // The reseller's own batches count for the reseller, not for its manager.
    const token = await t.controller.services.resellers.issueToken(manager.id, 'awa');
    const batch = await v1('POST', '/vouchers/batch', token.token, { profile_id: '1h-500F', quantity: 1 });
    expect(batch.status, JSON.stringify(batch.body)).to.equal(201);
    t.clock.advance(MONEY.windowMs);
    expect((await v1('POST', '/resellers/awa/topup', manager.token, { amount: 1000 })).status).to.equal(200);
  });

  it('applies the global quota per address to /v1 routes too', async () => {
    await start({ apiQuota: '3/15m' });
    // The set-up above spent the quota on /api; a fresh window for /v1.
    t.clock.advance(15 * 60_000);
    for (let i = 0; i < 3; i++) expect((await v1('GET', '/resellers', manager.token)).status).to.equal(200);
    const limited = await v1('GET', '/resellers', manager.token);
    expect(limited.status).to.equal(429);
    expect(limited.body.code).to.equal('RATE_LIMITED');
  });
});
