import { expect } from 'chai';
import { z } from 'zod';
import { TEST_DATABASES, forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';
import { RateLimiter } from '../../../controller/http/rate-limiter.js';

forEachDatabase('HTTP conventions', (database) => {
  let t: TestController;
  afterEach(async () => t?.close());

  it('answers JSON 404 for unknown routes', async () => {
    t = await startTestController(database);
    const res = await t.request('GET', '/api/v1/nothing-here');
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.equal({
      success: false,
      error: { code: 'NOT_FOUND', message: 'No route for GET /api/v1/nothing-here' },
    });
  });

  it('reports health with the database and version', async () => {
    t = await startTestController(database);
    const res = await t.request('GET', '/healthz');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'ok', database: 'ok' });
    expect(res.body.version).to.match(/^\d+\.\d+\.\d+/);
  });

  it('refuses invalid JSON and oversized bodies with a code', async () => {
    t = await startTestController(database, { bodyLimit: '2kb' });
    const bad = await t.request('POST', '/api/v1/auth/login', {
      raw: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal('INVALID_JSON');
    const big = await t.request('POST', '/api/v1/auth/register', {
      body: { email: 'a@example.com', password: 'abcd1234', name: 'x'.repeat(5000), kind: 'client' },
    });
    expect(big.status).to.equal(413);
    expect(big.body.error.code).to.equal('PAYLOAD_TOO_LARGE');
  });

  it('answers a generic 500 with no stack or secret when a handler fails', async () => {
    t = await startTestController(database);
    t.controller.api.route(
      { method: 'get', path: '/api/v1/test/boom', summary: 'boom', tags: ['test'], auth: 'public' },
      async () => {
        throw new Error('secret=hunter2 at /srv/app.js:12');
      },
    );
    const res = await t.request('GET', '/api/v1/test/boom');
    expect(res.status).to.equal(500);
    expect(res.body).to.deep.equal({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'Internal server error; retry later' },
    });
  });

  it('applies the global quota per IP on /api when configured, with Retry-After', async () => {
    t = await startTestController(database, { apiQuota: '3/15m' });
    for (let i = 0; i < 3; i++) expect((await t.request('GET', '/api/openapi.json')).status).to.equal(200);
    const limited = await t.request('GET', '/api/v1/licences/plans');
    expect(limited.status).to.equal(429);
    expect(limited.body.error.code).to.equal('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).to.be.within(1, 900);
    expect((await t.request('GET', '/healthz')).status).to.equal(200);
    t.clock.advance(15 * 60_000);
    expect((await t.request('GET', '/api/v1/licences/plans')).status).to.equal(200);
  });

  it('limits per user with a reusable limiter (429 with the given code)', async () => {
    t = await startTestController(database);
    const limiter = new RateLimiter({ limit: 5, windowMs: 60_000 }, t.clock, 'CLICK_SPAM_PROTECTION');
    t.controller.api.route(
      {
        method: 'post',
        path: '/api/v1/test/money',
        summary: 'money',
        tags: ['test'],
        auth: ['client'],
        limiter,
      },
      async () => ({ success: true }),
    );
    const a = await t.account('client');
    const b = await t.account('client');
    for (let i = 0; i < 5; i++)
      expect((await t.request('POST', '/api/v1/test/money', { token: a.token })).status).to.equal(200);
    const sixth = await t.request('POST', '/api/v1/test/money', { token: a.token });
    expect(sixth.status).to.equal(429);
    expect(sixth.body.error.code).to.equal('CLICK_SPAM_PROTECTION');
    expect((await t.request('POST', '/api/v1/test/money', { token: b.token })).status).to.equal(200);
    t.clock.advance(60_000);
    expect((await t.request('POST', '/api/v1/test/money', { token: a.token })).status).to.equal(200);
  });

  it('validates queries with details naming the fields', async () => {
    t = await startTestController(database);
    t.controller.api.route(
      {
        method: 'get',
        path: '/api/v1/test/list',
        summary: 'list',
        tags: ['test'],
        auth: 'public',
        query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
      },
      async (_ctx, { query }) => ({ success: true, data: query }),
    );
    expect((await t.request('GET', '/api/v1/test/list')).body.data).to.deep.equal({ limit: 20 });
    const bad = await t.request('GET', '/api/v1/test/list?limit=500');
    expect(bad.status).to.equal(400);
    expect(bad.body.details[0].field).to.equal('limit');
  });

  it('describes every registered route in /api/openapi.json', async () => {
    t = await startTestController(database);
    const res = await t.request('GET', '/api/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.equal('3.1.0');
    for (const { spec } of t.controller.api.routes) {
      const path = spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      expect(res.body.paths[path], path).to.have.property(spec.method);
    }
    const register = res.body.paths['/api/v1/auth/register'].post;
    expect(register.requestBody.content['application/json'].schema.properties).to.have.keys(
      'email',
      'password',
      'name',
      'kind',
    );
    expect(res.body.paths['/api/v1/admin/jobs/{name}/run'].post.parameters[0]).to.include({
      name: 'name',
      in: 'path',
    });
  });
});

describe('route envelope families', () => {
  it('adds the top-level code on the /v1/radius and /api/v1/radius routes', async () => {
    const t = await startTestController(TEST_DATABASES[0]!);
    try {
      const res = await t.request('GET', '/v1/radius/nothing-here');
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ success: false, code: 'NOT_FOUND' });
    } finally {
      await t.close();
    }
  });
});
