import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

const DAY = 86_400_000;

forEachDatabase('resellers', (database) => {
  let t: TestController;
  let manager: { token: string; id: string; email: string };

  beforeEach(async () => {
    t = await startTestController(database);
    const admin = await t.admin();
    manager = await t.account('client');
    await t.request('POST', '/api/v1/admin/licences', {
      token: admin.token,
      body: { client_id: manager.id, plan_code: 'RADIUS_ANNUAL' },
    });
    await t.controller.services.profiles.setProfile(manager.id, '1h-500F', {
      price_xof: 500,
      time_limit_seconds: 3600,
    });
  });

  // Ledger = balance for every reseller of every tenant, after every test.
  afterEach(async () => {
    const rows = await t.db.db.selectFrom('resellers').select(['client_id', 'username']).execute();
    for (const r of rows) {
      const check = await t.controller.services.resellers.ledgerCheck(r.client_id, r.username);
      expect(check.ledger, `ledger of ${r.username}`).to.equal(check.balance);
      expect(check.balance).to.be.at.least(0);
    }
    await t.close();
  });

  const req = (method: string, path: string, body?: unknown, token = manager.token) =>
    t.request(method, `/v1/radius${path}`, { token, ...(body !== undefined ? { body } : {}) });
  const create = (body: unknown, token?: string) => req('POST', '/resellers', body, token);
  const tokenFor = async (username: string) =>
    (await req('POST', `/resellers/${username}/token`)).body.token as string;
  const resellerCount = async () => (await req('GET', '/resellers')).body.resellers.length as number;

  describe('creation', () => {
    it('creates with the defaults, lowercased and without spaces, never returning a password', async () => {
      const res = await create({ username: ' Awa Diop ', password: 'secret-1' });
      expect(res.status).to.equal(201);
      expect(res.body.success).to.equal(true);
      expect(res.body.reseller).to.include({
        username: 'awadiop',
        balance: 0,
        commission_rate: 0,
        max_batch_size: 100,
        max_users_total: 1000,
        disabled: false,
        total_sales: 0,
      });
      expect(JSON.stringify(res.body)).to.not.match(/password|secret-1/);
      expect((await req('GET', '/resellers/awadiop/transactions')).body.transactions).to.deep.equal([]);
    });

    it('writes an opening ledger line for an initial balance', async () => {
      await create({
        username: 'awa',
        balance: 5000,
        commission_rate: 10,
        max_batch_size: 20,
        max_users_total: 50,
      });
      const lines = (await req('GET', '/resellers/awa/transactions')).body.transactions;
      expect(lines).to.have.length(1);
      expect(lines[0]).to.include({ type: 'OPENING', amount: 5000, balance_after: 5000 });
    });

    it('refuses a name taken in the tenant, whatever its case and spaces, but not in another tenant', async () => {
      await create({ username: 'awa' });
      const dup = await create({ username: 'A W A' });
      expect(dup.status).to.equal(409);
      expect(dup.body).to.include({ success: false, code: 'RESELLER_ALREADY_EXISTS' });
      expect(dup.body.error.code).to.equal('RESELLER_ALREADY_EXISTS');
      const other = await t.account('client');
      const admin = await t.admin();
      await t.request('POST', '/api/v1/admin/licences', {
        token: admin.token,
        body: { client_id: other.id, plan_code: 'RADIUS_ANNUAL' },
      });
      expect((await create({ username: 'awa' }, other.token)).status).to.equal(201);
    });

    const bad: [string, unknown, string][] = [
      ['no username', {}, 'username'],
      ['a blank username', { username: '   ' }, 'username'],
      ['a username with odd characters', { username: 'awa/../x' }, 'username'],
      ['a negative balance', { username: 'x', balance: -1 }, 'balance'],
      ['a fractional balance', { username: 'x', balance: 10.5 }, 'balance'],
      ['a balance as text', { username: 'x', balance: '100' }, 'balance'],
      ['a commission over 100', { username: 'x', commission_rate: 150 }, 'commission_rate'],
      ['a zero batch size', { username: 'x', max_batch_size: 0 }, 'max_batch_size'],
      ['a fractional total cap', { username: 'x', max_users_total: 1.5 }, 'max_users_total'],
    ];
    for (const [what, body, field] of bad) {
      it(`refuses ${what}, creating nothing`, async () => {
        const res = await create(body);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal('VALIDATION_ERROR');
        expect(res.body.details.map((d: { field: string }) => d.field)).to.include(field);
        expect(await resellerCount()).to.equal(0);
      });
    }
  });

  describe('credentials', () => {
    it('needs a client token with an active RADIUS licence', async () => {
      expect((await t.request('GET', '/v1/radius/resellers')).status).to.equal(401);
      const tech = await t.account('technician');
      expect((await req('GET', '/resellers', undefined, tech.token)).status).to.equal(403);
      const unlicensed = await t.account('client');
      const res = await create({ username: 'x' }, unlicensed.token);
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('RADIUS_LICENSE_INACTIVE');
      t.clock.advance(366 * DAY);
      const relog = await t.request('POST', '/api/v1/auth/login', {
        body: { email: manager.email, password: 'passw0rd-ok' },
      });
      const expired = await create({ username: 'y' }, relog.body.data.token);
      expect(expired.status).to.equal(403);
      expect(expired.body.error.code).to.equal('EXPIRED');
    });

    it('answers 404 for another tenant’s reseller', async () => {
      await create({ username: 'awa' });
      const other = await t.account('client');
      const admin = await t.admin();
      await t.request('POST', '/api/v1/admin/licences', {
        token: admin.token,
        body: { client_id: other.id, plan_code: 'RADIUS_ANNUAL' },
      });
      for (const [method, path, body] of [
        ['POST', '/resellers/awa/topup', { amount: 100 }],
        ['POST', '/resellers/awa/token', undefined],
        ['GET', '/resellers/awa/transactions', undefined],
        ['PUT', '/resellers/awa', { disabled: true }],
        ['DELETE', '/resellers/awa', undefined],
      ] as const) {
        const res = await req(method, path, body, other.token);
        expect(res.status, `${method} ${path}`).to.equal(404);
        expect(res.body.error.code).to.equal('RESELLER_NOT_FOUND');
      }
      expect((await req('GET', '/resellers/awa/transactions')).body.transactions).to.deep.equal([]);
    });

    it('issues 365-day tokens, refuses them to a suspended reseller, keeps issued ones valid', async () => {
      await create({ username: 'awa' });
      const res = await req('POST', '/resellers/awa/token');
      expect(res.status).to.equal(200);
      expect(res.body).to.have.keys('success', 'token', 'expires_in_days');
      expect(res.body.expires_in_days).to.equal(365);
      const token = res.body.token as string;
      expect((await req('GET', '/resellers/self', undefined, token)).body.reseller.username).to.equal('awa');

      await req('PUT', '/resellers/awa', { disabled: true });
      const refused = await req('POST', '/resellers/awa/token');
      expect(refused.status).to.equal(403);
      expect(refused.body.error.code).to.equal('RESELLER_DISABLED');
      expect((await req('GET', '/resellers/self', undefined, token)).status).to.equal(200);
      const batch = await req('POST', '/vouchers/batch', { profile_id: '1h-500F', quantity: 1 }, token);
      expect(batch.status).to.equal(403);
      expect(batch.body.error.code).to.equal('RESELLER_DISABLED');

      t.clock.advance(365 * DAY + 1000);
      expect((await req('GET', '/resellers/self', undefined, token)).status).to.equal(401);
    });

    it('keeps reseller tokens out of manager routes', async () => {
      await create({ username: 'awa' });
      const token = await tokenFor('awa');
      expect((await req('GET', '/resellers', undefined, token)).status).to.equal(403);
      expect((await req('POST', '/resellers/awa/topup', { amount: 1000 }, token)).status).to.equal(403);
    });
  });

  describe('updates and deletion', () => {
    it('changes caps and suspension but never the balance', async () => {
      await create({ username: 'awa', balance: 1000 });
      const ok = await req('PUT', '/resellers/awa', {
        max_batch_size: 10,
        commission_rate: 5,
        disabled: true,
      });
      expect(ok.status).to.equal(200);
      expect(ok.body.reseller).to.include({
        max_batch_size: 10,
        commission_rate: 5,
        disabled: true,
        balance: 1000,
      });
      const refused = await req('PUT', '/resellers/awa', { balance: 999999 });
      expect(refused.status).to.equal(400);
      expect(refused.body.error.code).to.equal('BALANCE_NOT_EDITABLE');
      for (const body of [{}, { max_batch_size: -1 }, { disabled: 'yes' }, { commission_rate: 101 }]) {
        const res = await req('PUT', '/resellers/awa', body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
      }
      const after = (await req('GET', '/resellers')).body.resellers[0];
      expect(after).to.include({ balance: 1000, max_batch_size: 10, commission_rate: 5 });
      expect((await req('PUT', '/resellers/nobody', { disabled: true })).status).to.equal(404);
    });

    it('soft-deletes: gone from the list and its token, name still taken, tickets keep its name', async () => {
      await create({ username: 'awa', balance: 1000 });
      const token = await tokenFor('awa');
      await req('POST', '/vouchers/batch', { profile_id: '1h-500F', quantity: 2 }, token);
      expect((await req('DELETE', '/resellers/awa')).status).to.equal(200);
      expect(await resellerCount()).to.equal(0);
      expect((await req('GET', '/resellers/self', undefined, token)).status).to.equal(401);
      expect((await create({ username: 'awa' })).status).to.equal(409);
      const vouchers = (await req('GET', '/vouchers?reseller=awa')).body.vouchers;
      expect(vouchers).to.have.length(2);
      expect(vouchers.every((v: { reseller_name: string }) => v.reseller_name === 'awa')).to.equal(true);
      expect((await req('DELETE', '/resellers/awa')).status).to.equal(404);
    });
  });

  describe('money', () => {
    it('credits only through top-up, with a ledger line; refuses bad amounts changing nothing', async () => {
      await create({ username: 'awa' });
      const res = await req('POST', '/resellers/awa/topup', { amount: 2500, reason: 'cash handed in' });
      expect(res.status).to.equal(200);
      expect(res.body.reseller.balance).to.equal(2500);
      expect(res.body.transaction).to.include({
        type: 'TOPUP',
        amount: 2500,
        reason: 'cash handed in',
        balance_after: 2500,
      });
      for (const body of [{ amount: 0 }, { amount: -5 }, { amount: 1.5 }, { amount: '100' }, {}]) {
        const bad = await req('POST', '/resellers/awa/topup', body);
        expect(bad.status, JSON.stringify(body)).to.equal(400);
        expect(bad.body.error.code).to.equal('VALIDATION_ERROR');
      }
      const lines = (await req('GET', '/resellers/awa/transactions')).body.transactions;
      expect(lines).to.have.length(1);
      expect((await req('POST', '/resellers/nobody/topup', { amount: 10 })).status).to.equal(404);
    });

    it('credits once for a retried top-up with the same Idempotency-Key', async () => {
      await create({ username: 'awa' });
      const send = (amount: number) =>
        t.request('POST', '/v1/radius/resellers/awa/topup', {
          token: manager.token,
          body: { amount },
          headers: { 'idempotency-key': 'k-1' },
        });
      const [a, b] = await Promise.all([send(1000), send(1000)]);
      expect([a.status, b.status]).to.deep.equal([200, 200]);
      expect([a.body.replayed, b.body.replayed].sort()).to.deep.equal([false, true]);
      expect((await req('GET', '/resellers')).body.resellers[0].balance).to.equal(1000);
      const reused = await send(2000);
      expect(reused.status).to.equal(409);
      expect(reused.body.error.code).to.equal('IDEMPOTENCY_KEY_REUSED');
    });

    it('pages the ledger newest first', async () => {
      await create({ username: 'awa' });
      for (const amount of [100, 200, 300, 400, 500]) await req('POST', '/resellers/awa/topup', { amount });
      const page1 = (await req('GET', '/resellers/awa/transactions?limit=2')).body.transactions;
      const page3 = (await req('GET', '/resellers/awa/transactions?limit=2&offset=4')).body.transactions;
      expect(page1.map((l: { amount: number }) => l.amount)).to.deep.equal([500, 400]);
      expect(page3.map((l: { balance_after: number }) => l.balance_after)).to.deep.equal([100]);
      expect((await req('GET', '/resellers/awa/transactions?limit=0')).status).to.equal(400);
      expect((await req('GET', '/resellers/awa/transactions?offset=-1')).status).to.equal(400);
    });

    it('shows the reseller its balance and ten latest transactions', async () => {
      await create({ username: 'awa' });
      for (let i = 1; i <= 12; i++) await req('POST', '/resellers/awa/topup', { amount: i * 100 });
      const self = await req('GET', '/resellers/self', undefined, await tokenFor('awa'));
      expect(self.body.reseller.balance).to.equal(7800);
      expect(self.body.transactions).to.have.length(10);
      expect(self.body.transactions[0].amount).to.equal(1200);
    });

    it('records the desktop-tool intent without returning its password', async () => {
      await create({ username: 'awa' });
      const res = await req('PUT', '/resellers/awa/desktop_tool', {
        allow_desktop_login: true,
        router_group: 'vendeurs',
        desktop_password: 'pc-pass-1',
      });
      expect(res.status).to.equal(200);
      expect(res.body.desktop_tool).to.include({
        allow_desktop_login: true,
        router_group: 'vendeurs',
        desktop_password_set: true,
      });
      expect(JSON.stringify(res.body)).to.not.include('pc-pass-1');
      expect((await req('PUT', '/resellers/awa/desktop_tool', { router_group: 'x' })).status).to.equal(400);
    });
  });

  describe('batches (size, total, balance, then tickets and debit)', () => {
    const batch = (token: string, body: unknown) => req('POST', '/vouchers/batch', body, token);
    const state = async () => {
      const r = (await req('GET', '/resellers')).body.resellers[0];
      const lines = (await req('GET', '/resellers/awa/transactions')).body.transactions.length;
      const tickets = (await req('GET', '/vouchers?reseller=awa&limit=1000')).body.vouchers.length;
      return { balance: r.balance, issued: r.tickets_issued, lines, tickets };
    };

    it('creates the tickets with reseller_name, debits the balance and writes one ledger line', async () => {
      await create({ username: 'awa', balance: 5000, commission_rate: 10 });
      const token = await tokenFor('awa');
      const res = await batch(token, {
        profile_id: '1h-500F',
        quantity: 3,
        comment: 'marché',
        reseller_name: 'moussa',
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ success: true, count: 3, cost: 1350, balance: 3650 });
      expect(res.body.vouchers).to.have.length(3);
      for (const v of res.body.vouchers)
        expect(v).to.include({ reseller_name: 'awa', status: 'ACTIVE', comment: 'marché' });
      expect(res.body.transaction).to.include({ type: 'BATCH', amount: -1350, balance_after: 3650 });
      const r = (await req('GET', '/resellers')).body.resellers[0];
      expect(r).to.include({ balance: 3650, total_sales: 1350, tickets_issued: 3 });
    });

    it('checks the batch size first, then the cumulative cap, then the balance; nothing changes on refusal', async () => {
      await create({ username: 'awa', balance: 1000, max_batch_size: 5, max_users_total: 6 });
      const token = await tokenFor('awa');
      const before = await state();

      const tooBig = await batch(token, { profile_id: '1h-500F', quantity: 6 });
      expect(tooBig.status).to.equal(400);
      expect(tooBig.body.error.code).to.equal('BATCH_TOO_LARGE');

      expect((await batch(token, { profile_id: '1h-500F', quantity: 2 })).status).to.equal(201);
      const overCap = await batch(token, { profile_id: '1h-500F', quantity: 5 });
      expect(overCap.status).to.equal(400);
      expect(overCap.body.error.code).to.equal('RESELLER_TOTAL_EXCEEDED');

      const poor = await batch(token, { profile_id: '1h-500F', quantity: 1 });
      expect(poor.status).to.equal(400);
      expect(poor.body.error.code).to.equal('INSUFFICIENT_BALANCE');
      expect(poor.body.error.message).to.include('500').and.include('0 XOF');
      expect(poor.body.details).to.deep.equal({ required: 500, balance: 0, missing: 500 });

      const after = await state();
      expect(after).to.deep.equal({ balance: 0, issued: 2, lines: before.lines + 1, tickets: 2 });
    });

    it('names the required amount and the real balance when it cannot pay', async () => {
      await create({ username: 'awa', balance: 700 });
      const res = await batch(await tokenFor('awa'), { profile_id: '1h-500F', quantity: 2 });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.equal(
        'Insufficient balance: this batch costs 1000 XOF and the balance is 700 XOF',
      );
      expect(await state()).to.deep.equal({ balance: 700, issued: 0, lines: 1, tickets: 0 });
    });

    it('refuses bad batch input and unknown or unpriced profiles, changing nothing', async () => {
      await create({ username: 'awa', balance: 1000 });
      await t.controller.services.profiles.setProfile(manager.id, 'free', { price_xof: null });
      const token = await tokenFor('awa');
      const cases: [unknown, number, string][] = [
        [{ quantity: 1 }, 400, 'VALIDATION_ERROR'],
        [{ profile_id: '1h-500F' }, 400, 'VALIDATION_ERROR'],
        [{ profile_id: '1h-500F', quantity: 0 }, 400, 'VALIDATION_ERROR'],
        [{ profile_id: '1h-500F', quantity: 2.5 }, 400, 'VALIDATION_ERROR'],
        [{ profile_id: 'nope', quantity: 1 }, 404, 'PROFILE_NOT_FOUND'],
        [{ profile_id: 'free', quantity: 1 }, 400, 'PROFILE_PRICE_MISSING'],
      ];
      for (const [body, status, code] of cases) {
        const res = await batch(token, body);
        expect(res.status, JSON.stringify(body)).to.equal(status);
        expect(res.body.error.code).to.equal(code);
      }
      expect(await state()).to.deep.equal({ balance: 1000, issued: 0, lines: 1, tickets: 0 });
      expect((await batch(manager.token, { profile_id: '1h-500F', quantity: 1 })).status).to.equal(403);
    });

    it('never overdraws or loses a debit under concurrent batches and top-ups', async () => {
      await create({ username: 'awa', balance: 10_000, max_batch_size: 10, max_users_total: 100_000 });
      const token = await tokenFor('awa');
      const ops: Promise<{ status: number }>[] = [];
      for (let i = 0; i < 30; i++) ops.push(batch(token, { profile_id: '1h-500F', quantity: 3 }));
      for (let i = 0; i < 10; i++) ops.push(req('POST', '/resellers/awa/topup', { amount: 1000 }));
      const results = await Promise.all(ops);
      const batchesOk = results.slice(0, 30).filter((r) => r.status === 201).length;
      const refused = results.slice(0, 30).filter((r) => r.status === 400).length;
      expect(batchesOk + refused).to.equal(30);
      expect(results.slice(30).every((r) => r.status === 200)).to.equal(true);
      const s = await state();
      expect(s.balance).to.equal(10_000 + 10 * 1000 - batchesOk * 1500);
      expect(s.balance).to.be.at.least(0);
      expect(s.tickets).to.equal(batchesOk * 3);
      expect(s.issued).to.equal(batchesOk * 3);
      expect(s.lines).to.equal(1 + 10 + batchesOk);
    });
  });

  describe('voucher listing', () => {
    it('forces the reseller for a reseller token, filters and pages for the manager', async () => {
      await create({ username: 'awa', balance: 10_000 });
      await create({ username: 'moussa', balance: 10_000 });
      const awa = await tokenFor('awa');
      const moussa = await tokenFor('moussa');
      await req('POST', '/vouchers/batch', { profile_id: '1h-500F', quantity: 4 }, awa);
      await req('POST', '/vouchers/batch', { profile_id: '1h-500F', quantity: 2 }, moussa);
      await t.controller.services.tickets.createTickets(manager.id, { profileId: '1h-500F', quantity: 1 });

      const own = await req('GET', '/vouchers?reseller=moussa', undefined, awa);
      expect(own.body.vouchers).to.have.length(4);
      expect(own.body.vouchers.every((v: { reseller_name: string }) => v.reseller_name === 'awa')).to.equal(
        true,
      );
      expect(Object.keys(own.body.vouchers[0]).sort()).to.deep.equal(
        ['code', 'comment', 'created_at', 'profile_id', 'reseller_name', 'status', 'used_at'].sort(),
      );

      expect((await req('GET', '/vouchers?limit=1000')).body.vouchers).to.have.length(7);
      expect((await req('GET', '/vouchers?reseller=moussa')).body.vouchers).to.have.length(2);
      const pages = [0, 3, 6].map((o) => req('GET', `/vouchers?limit=3&offset=${o}`));
      expect((await Promise.all(pages)).map((p) => p.body.vouchers.length)).to.deep.equal([3, 3, 1]);
      expect((await req('GET', '/vouchers?status=USED')).body.vouchers).to.deep.equal([]);
      expect((await req('GET', '/vouchers?status=SOLD')).status).to.equal(400);
      expect((await req('GET', '/vouchers?limit=1001')).status).to.equal(400);
    });

    it('lists profile_id as it was sent at creation: the name when a name was sent, the id when the id was', async () => {
      await create({ username: 'awa', balance: 10_000 });
      const awa = await tokenFor('awa');
      const profile = (await t.controller.services.profiles.listProfiles(manager.id)).find(
        (p) => p.name === '1h-500F',
      )!;
      expect(profile.id).to.not.equal('1h-500F');
      const byName = await req('POST', '/vouchers/batch', { profile_id: '1h-500F', quantity: 2 }, awa);
      expect(byName.status, JSON.stringify(byName.body)).to.equal(201);
      const byId = await req('POST', '/vouchers/batch', { profile_id: profile.id, quantity: 1 }, awa);
      expect(byId.status, JSON.stringify(byId.body)).to.equal(201);
      const sent = new Map<string, string>();
      for (const v of byName.body.vouchers) sent.set(v.code, '1h-500F');
      for (const v of byId.body.vouchers) sent.set(v.code, profile.id);
      expect(byName.body.vouchers.map((v: { profile_id: string }) => v.profile_id)).to.deep.equal([
        '1h-500F',
        '1h-500F',
      ]);

      for (const token of [awa, manager.token]) {
        const listed = (await req('GET', '/vouchers', undefined, token)).body.vouchers as {
          code: string;
          profile_id: string;
        }[];
        expect(listed).to.have.length(3);
        for (const v of listed) expect(v.profile_id, v.code).to.equal(sent.get(v.code));
      }
    });
  });
});
