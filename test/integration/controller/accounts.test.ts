import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

forEachDatabase('accounts', (database) => {
  let t: TestController;
  beforeEach(async () => (t = await startTestController(database)));
  afterEach(async () => t.close());

  const register = (body: unknown) => t.request('POST', '/api/v1/auth/register', { body });
  const login = (body: unknown) => t.request('POST', '/api/v1/auth/login', { body });
  const valid = { email: 'Awa.Diop@Example.com ', password: 'hotspot2026', name: 'Awa Diop', kind: 'client' };

  it('registers, logs in and reads itself back', async () => {
    const reg = await register(valid);
    expect(reg.status).to.equal(201);
    expect(reg.body.success).to.equal(true);
    expect(reg.body.data.account).to.include({
      email: 'awa.diop@example.com',
      name: 'Awa Diop',
      kind: 'client',
    });
    expect(reg.body.data.account.created_at).to.match(/Z$/);
    expect(reg.body.data.account).to.not.have.any.keys('password', 'password_hash');
    expect(reg.body.data.token).to.be.a('string');

    const log = await login({ email: 'AWA.DIOP@example.com', password: 'hotspot2026' });
    expect(log.status).to.equal(200);
    expect(log.body.data.account.id).to.equal(reg.body.data.account.id);

    const me = await t.request('GET', '/api/v1/auth/me', { token: log.body.data.token });
    expect(me.status).to.equal(200);
    expect(me.body).to.deep.equal({ success: true, data: { account: reg.body.data.account } });
  });

  for (const kind of ['client', 'technician', 'partner']) {
    it(`registers a ${kind}`, async () => {
      const res = await register({ ...valid, email: `${kind}@example.com`, kind });
      expect(res.status).to.equal(201);
      expect(res.body.data.account.kind).to.equal(kind);
    });
  }

  const refusedRegistrations: [string, unknown, number, string, string?][] = [
    ['an admin kind', { ...valid, kind: 'admin' }, 400, 'VALIDATION_ERROR', 'kind'],
    ['an unknown kind', { ...valid, kind: 'root' }, 400, 'VALIDATION_ERROR', 'kind'],
    ['a malformed e-mail', { ...valid, email: 'awa@' }, 400, 'VALIDATION_ERROR', 'email'],
    ['no e-mail', { ...valid, email: undefined }, 400, 'VALIDATION_ERROR', 'email'],
    ['an e-mail that is a number', { ...valid, email: 42 }, 400, 'VALIDATION_ERROR', 'email'],
    ['no name', { ...valid, name: '  ' }, 400, 'VALIDATION_ERROR', 'name'],
    ['a weak password', { ...valid, password: 'password' }, 400, 'WEAK_PASSWORD'],
    ['a short password', { ...valid, password: 'a1' }, 400, 'WEAK_PASSWORD'],
    ['no password', { ...valid, password: '' }, 400, 'VALIDATION_ERROR', 'password'],
    ['an array body', [valid], 400, 'VALIDATION_ERROR'],
  ];
  for (const [what, body, status, code, field] of refusedRegistrations) {
    it(`refuses a registration with ${what}, creating nothing`, async () => {
      const res = await register(body);
      expect(res.status).to.equal(status);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.code).to.equal(code);
      expect(res.body.error.message).to.be.a('string').and.not.empty;
      if (field) expect(res.body.details.map((d: { field: string }) => d.field)).to.include(field);
      const after = await login({ email: 'awa.diop@example.com', password: valid.password });
      expect(after.status).to.equal(401);
    });
  }

  it('refuses a duplicate e-mail whatever its case, keeping the first account', async () => {
    const first = await register(valid);
    const dup = await register({
      ...valid,
      email: 'AWA.diop@example.COM',
      password: 'other-pass-9',
      name: 'X',
    });
    expect(dup.status).to.equal(409);
    expect(dup.body.error.code).to.equal('EMAIL_ALREADY_EXISTS');
    const log = await login({ email: valid.email, password: valid.password });
    expect(log.body.data.account.id).to.equal(first.body.data.account.id);
    expect((await login({ email: valid.email, password: 'other-pass-9' })).status).to.equal(401);
  });

  it('creates one account when the same e-mail registers twice at once', async () => {
    const results = await Promise.all([register(valid), register(valid), register(valid)]);
    expect(results.map((r) => r.status).sort()).to.deep.equal([201, 409, 409]);
  });

  it('answers wrong password and unknown e-mail alike', async () => {
    await register(valid);
    const wrong = await login({ email: valid.email, password: 'hotspot2027' });
    const unknown = await login({ email: 'nobody@example.com', password: 'hotspot2026' });
    for (const res of [wrong, unknown]) {
      expect(res.status).to.equal(401);
      expect(res.body.error).to.deep.equal({
        code: 'INVALID_CREDENTIALS',
        message: 'Wrong e-mail or password',
      });
      expect(res.body).to.not.have.property('data');
    }
  });

  it('refuses malformed logins with a field list', async () => {
    const res = await login({ email: 'not-an-email' });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).to.deep.equal([
      'email',
      'password',
    ]);
  });

  it('refuses /me without a token, with a bad token and with an expired one', async () => {
    const { token } = await t.account('client');
    expect((await t.request('GET', '/api/v1/auth/me')).body.error.code).to.equal('UNAUTHENTICATED');
    const bad = await t.request('GET', '/api/v1/auth/me', { token: `${token}x` });
    expect(bad.status).to.equal(401);
    expect(bad.body.error.code).to.equal('UNAUTHENTICATED');
    t.clock.advance(31 * 86_400_000);
    const expired = await t.request('GET', '/api/v1/auth/me', { token });
    expect(expired.status).to.equal(401);
  });

  it('creates admins only through the service (CLI), never through register', async () => {
    const admin = await t.admin();
    const me = await t.request('GET', '/api/v1/auth/me', { token: admin.token });
    expect(me.body.data.account.kind).to.equal('admin');
  });
});
