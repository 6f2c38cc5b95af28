import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';
import { CODE_ALPHABET } from '../../../controller/modules/tickets/ticket-code.js';

const DAY = 86_400_000;

forEachDatabase('RADIUS profiles and tickets (manager routes)', (database) => {
  let t: TestController;
  let manager: { token: string; id: string; email: string };
  beforeEach(async () => {
    t = await startTestController(database);
    manager = await t.account('client');
    await t.controller.services.licences.grant(manager.id, 'RADIUS_ANNUAL', null);
  });
  afterEach(async () => t.close());

  const put = (name: string, body: unknown, token = manager.token) =>
    t.request('PUT', `/api/v1/radius/profiles/${encodeURIComponent(name)}`, { token, body });
  const create = (body: unknown, token = manager.token) =>
    t.request('POST', '/api/v1/radius/tickets', { token, body });
  const list = (query = '', token = manager.token) =>
    t.request('GET', `/api/v1/radius/tickets${query}`, { token });
  const patch = (code: string, body: unknown, token = manager.token) =>
    t.request('PATCH', `/api/v1/radius/tickets/${code}`, { token, body });
  const count = async () =>
    Number(
      (await t.db.db
        .selectFrom('radius_tickets')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst())!.n,
    );

  it('sets a profile from human units and lists it back', async () => {
    const res = await put('1 Jour', {
      price: 500,
      data_limit: '10G',
      time_limit: '1h30m',
      validity: '7d',
      rate_limit: '2M/2M',
    });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({
      name: '1 Jour',
      price: 500,
      data_limit: '10G',
      data_limit_bytes: 10 * 2 ** 30,
      time_limit: '1h30m',
      time_limit_seconds: 5400,
      validity: '7d',
      validity_seconds: 604_800,
      rate_limit: '2M/2M',
      source: 'MANUAL',
    });
    // Null clears one field; absent fields stay.
    const cleared = await put('1 Jour', { data_limit: null });
    expect(cleared.body.data).to.include({ data_limit: null, price: 500, validity: '7d' });
    const all = await t.request('GET', '/api/v1/radius/profiles', { token: manager.token });
    expect(all.body.data.map((p: { name: string }) => p.name)).to.deep.equal(['1 Jour']);
  });

  it('refuses bad profile input naming the field, and changes nothing', async () => {
    await put('P', { price: 100 });
    const cases: [unknown, string][] = [
      [{ data_limit: '10 apples' }, 'data_limit'],
      [{ time_limit: 'soon' }, 'time_limit'],
      [{ price: -5 }, 'price'],
      [{ price: 12.5 }, 'price'],
      [{ rate_limit: 'fast' }, 'rate_limit'],
      [{ colour: 'red' }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await put('P', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body).to.include({ success: false, code: 'VALIDATION_ERROR' });
      if (field) expect(res.body.details.map((d: { field: string }) => d.field)).to.include(field);
    }
    expect(
      (await t.request('GET', '/api/v1/radius/profiles', { token: manager.token })).body.data,
    ).to.have.length(1);
    expect(
      (await t.request('GET', '/api/v1/radius/profiles', { token: manager.token })).body.data[0].price,
    ).to.equal(100);
  });

  it('creates a batch of tickets: unique codes without look-alikes, password = code, ACTIVE', async () => {
    const profile = (await put('1H', { time_limit: '1h' })).body.data;
    const res = await create({ profile_id: profile.id, quantity: 25, comment: 'lot 7' });
    expect(res.status).to.equal(201);
    expect(res.body.data.count).to.equal(25);
    const codes = res.body.data.tickets.map((x: { code: string }) => x.code);
    expect(new Set(codes).size).to.equal(25);
    for (const ticket of res.body.data.tickets) {
      expect(ticket).to.include({
        password: ticket.code,
        status: 'ACTIVE',
        comment: 'lot 7',
        profile_id: profile.id,
        profile_name: '1H',
      });
      expect([...ticket.code].every((ch: string) => CODE_ALPHABET.includes(ch))).to.equal(true);
    }
    // The profile may also be named.
    expect((await create({ profile_id: '1H', quantity: 1 })).status).to.equal(201);
    expect(await count()).to.equal(26);
  });

  it('refuses bad batch input and unknown profiles, creating nothing', async () => {
    const profile = (await put('1H', { time_limit: '1h' })).body.data;
    for (const body of [
      { profile_id: profile.id, quantity: 0 },
      { profile_id: profile.id, quantity: 1001 },
      { profile_id: profile.id, quantity: '5' },
      { profile_id: profile.id, quantity: 2.5 },
      { quantity: 5 },
      { profile_id: profile.id, quantity: 5, reseller_name: 'me' },
    ]) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.code).to.equal('VALIDATION_ERROR');
    }
    const missing = await create({ profile_id: 'no-such-profile', quantity: 5 });
    expect(missing.status).to.equal(404);
    expect(missing.body).to.deep.include({ success: false, code: 'PROFILE_NOT_FOUND' });
    expect(await count()).to.equal(0);
  });

  it('lists tickets newest first with limit, offset and status; DELETED only on request', async () => {
    await put('1H', {});
    const first = (await create({ profile_id: '1H', quantity: 3 })).body.data.tickets;
    t.clock.advance(1000);
    await create({ profile_id: '1H', quantity: 2 });
    const all = await list('?limit=1000');
    expect(all.body.data).to.have.length(5);
    expect(
      all.body.data
        .slice(2)
        .map((x: { code: string }) => x.code)
        .sort(),
    ).to.deep.equal(first.map((x: { code: string }) => x.code).sort());
    const pageA = (await list('?limit=2&offset=0')).body.data.map((x: { code: string }) => x.code);
    const pageB = (await list('?limit=2&offset=2')).body.data.map((x: { code: string }) => x.code);
    const pageC = (await list('?limit=2&offset=4')).body.data.map((x: { code: string }) => x.code);
    expect([...pageA, ...pageB, ...pageC]).to.deep.equal(all.body.data.map((x: { code: string }) => x.code));
    expect(pageC).to.have.length(1);

    await patch(first[0].code, { status: 'DELETED' });
    await patch(first[1].code, { status: 'DISABLED' });
    expect((await list()).body.data).to.have.length(4);
    expect((await list('?status=DELETED')).body.data.map((x: { code: string }) => x.code)).to.deep.equal([
      first[0].code,
    ]);
    expect((await list('?status=DISABLED')).body.data).to.have.length(1);
    expect((await list('?status=ACTIVE')).body.data).to.have.length(3);
    for (const q of ['?status=GONE', '?limit=0', '?limit=1001', '?offset=-1']) {
      expect((await list(q)).status, q).to.equal(400);
    }
  });

  it('allows only the defined status transitions', async () => {
    await put('1H', {});
    const [a] = (await create({ profile_id: '1H', quantity: 1 })).body.data.tickets;
    expect((await patch(a.code, { status: 'DISABLED' })).body.data.status).to.equal('DISABLED');
    expect((await patch(a.code, { status: 'ACTIVE' })).body.data.status).to.equal('ACTIVE');
    expect((await patch(a.code, { status: 'DELETED' })).body.data.status).to.equal('DELETED');
    const refused = await patch(a.code, { status: 'ACTIVE' });
    expect(refused.status).to.equal(409);
    expect(refused.body.code).to.equal('TICKET_TRANSITION_REFUSED');
    for (const body of [{ status: 'USED' }, { status: 'EXHAUSTED' }, {}, { status: 'ACTIVE', extra: 1 }]) {
      const res = await patch(a.code, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
    }
    // Nothing a refused request asked for happened.
    expect((await list('?status=DELETED')).body.data.map((x: { code: string }) => x.code)).to.deep.equal([
      a.code,
    ]);
    const missing = await patch('nosuchcode', { status: 'DISABLED' });
    expect(missing.status).to.equal(404);
    expect(missing.body.code).to.equal('TICKET_NOT_FOUND');
  });

  it('needs an active RADIUS licence: 403 RADIUS_LICENSE_INACTIVE, then EXPIRED', async () => {
    const other = await t.account('client');
    const calls = [
      () => t.request('GET', '/api/v1/radius/profiles', { token: other.token }),
      () => put('1H', { price: 1 }, other.token),
      () => create({ profile_id: '1H', quantity: 1 }, other.token),
      () => list('', other.token),
      () => patch('abcdefgh', { status: 'DISABLED' }, other.token),
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.include({ success: false, code: 'RADIUS_LICENSE_INACTIVE' });
    }
    t.clock.advance(366 * DAY);
    // The token outlives no year: log in again.
    const login = await t.request('POST', '/api/v1/auth/login', {
      body: { email: manager.email, password: 'passw0rd-ok' },
    });
    const expired = await list('', login.body.data.token);
    expect(expired.status).to.equal(403);
    expect(expired.body.code).to.equal('EXPIRED');
    expect(await count()).to.equal(0);
  });

  it("keeps other tenants' profiles and tickets invisible", async () => {
    await put('1H', {});
    const [mine] = (await create({ profile_id: '1H', quantity: 1 })).body.data.tickets;
    const other = await t.account('client');
    await t.controller.services.licences.grant(other.id, 'RADIUS_ANNUAL', null);
    expect((await list('', other.token)).body.data).to.deep.equal([]);
    expect(
      (await t.request('GET', '/api/v1/radius/profiles', { token: other.token })).body.data,
    ).to.deep.equal([]);
    expect((await patch(mine.code, { status: 'DISABLED' }, other.token)).status).to.equal(404);
    expect((await create({ profile_id: mine.profile_id, quantity: 1 }, other.token)).status).to.equal(404);
    expect((await create({ profile_id: '1H', quantity: 1 }, other.token)).status).to.equal(404);
    expect((await list()).body.data[0].status).to.equal('ACTIVE');
  });

  it('is for clients only', async () => {
    const tech = await t.account('technician');
    expect((await list('', tech.token)).status).to.equal(403);
    expect((await t.request('GET', '/api/v1/radius/tickets')).status).to.equal(401);
  });
});
