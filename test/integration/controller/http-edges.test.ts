// The edges of the HTTP surface: bodies that are not JSON, methods a route does not have, OPTIONS,
// oversized headers, strict integers in queries, control characters in texts bound for a router,
// and ticket codes kept out of the request log.
import { connect } from 'node:net';
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { captureLogs } from '../../support/log-capture.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

async function licensedClient(t: TestController) {
  const client = await t.account('client');
  const admin = await t.admin();
  const res = await t.request('POST', '/api/v1/admin/licences', {
    token: admin.token,
    body: { client_id: client.id, plan_code: 'RADIUS_ANNUAL' },
  });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return client;
}

forEachDatabase('HTTP edges', (database) => {
  let t: TestController;
  afterEach(async () => t?.close());

  describe('bodies that are not JSON', () => {
    it('refuses a text/plain allocation with 415 and creates none', async () => {
      t = await startTestController(database);
      const client = await t.account('client');
      const res = await t.request('POST', '/api/v1/clients/allocations', {
        token: client.token,
        raw: '{"label":"caisse"}',
        headers: { 'content-type': 'text/plain' },
      });
      expect(res.status).to.equal(415);
      expect(res.body).to.deep.equal({
        success: false,
        error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as application/json' },
      });
      const list = await t.request('GET', '/api/v1/clients/allocations', { token: client.token });
      expect(list.body.data).to.have.length(0);
    });

    it('refuses a text/plain profile with 415 and creates no profile', async () => {
      t = await startTestController(database);
      const client = await licensedClient(t);
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await t.request('PUT', '/api/v1/radius/profiles/1h-500F', {
          token: client.token,
          raw: type.endsWith('urlencoded') ? 'price=500' : '{"price":500}',
          headers: { 'content-type': type },
        });
        expect(res.status, type).to.equal(415);
        expect(res.body).to.include({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
      }
      const noType = await t.request('PUT', '/api/v1/radius/profiles/1h-500F', {
        token: client.token,
        raw: '{"price":500}',
      });
      expect(noType.status, 'a body without a content type').to.equal(415);
      const profiles = await t.request('GET', '/api/v1/radius/profiles', { token: client.token });
      expect(profiles.status).to.equal(200);
      expect(JSON.stringify(profiles.body)).to.not.include('1h-500F');
    });

    it('still takes an empty body without a content type, and JSON as before', async () => {
      t = await startTestController(database);
      const client = await t.account('client');
      const empty = await t.request('POST', '/api/v1/clients/allocations', { token: client.token });
      expect(empty.status, JSON.stringify(empty.body)).to.equal(201);
      const json = await t.request('POST', '/api/v1/clients/allocations', {
        token: client.token,
        raw: '{"label":"caisse"}',
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(json.status, JSON.stringify(json.body)).to.equal(201);
      expect(json.body.data.allocation.label).to.equal('caisse');
    });
  });

  describe('methods', () => {
    it('answers 405 in the JSON envelope with Allow, on both route families', async () => {
      t = await startTestController(database);
      const res = await t.request('DELETE', '/api/v1/auth/login');
      expect(res.status).to.equal(405);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(res.body.success).to.equal(false);
      expect(res.body.error.code).to.equal('METHOD_NOT_ALLOWED');
      expect(String(res.headers.allow).split(', ')).to.include.members(['POST', 'OPTIONS']);
      const radius = await t.request('PATCH', '/v1/radius/resellers');
      expect(radius.status).to.equal(405);
      expect(radius.body).to.include({ success: false, code: 'METHOD_NOT_ALLOWED' });
      expect(String(radius.headers.allow).split(', ')).to.include.members(['GET', 'HEAD', 'POST']);
      const odd = await t.request('PROPFIND', '/api/v1/clients/allocations');
      expect(odd.status).to.equal(405);
      expect(odd.body.error.code).to.equal('METHOD_NOT_ALLOWED');
    });

    it('answers OPTIONS with the methods in the JSON envelope, and 404 for a path no route has', async () => {
      t = await startTestController(database);
      const res = await t.request('OPTIONS', '/api/v1/clients/allocations');
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.data.methods).to.include.members(['GET', 'POST', 'OPTIONS']);
      expect(String(res.headers.allow).split(', ')).to.have.members(res.body.data.methods);
      const none = await t.request('OPTIONS', '/api/v1/nothing-here');
      expect(none.status).to.equal(404);
      expect(none.body.error.code).to.equal('NOT_FOUND');
    });

    it('answers headers too large with 431 in the JSON envelope', async () => {
      t = await startTestController(database);
      const { port } = await t.controller.listen();
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString('utf8')));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
        socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
      });
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).to.match(/^HTTP\/1\.1 431 /);
      expect(head).to.match(/content-type: application\/json/i);
      expect(JSON.parse(body!)).to.deep.equal({
        success: false,
        error: { code: 'HEADERS_TOO_LARGE', message: 'Request headers are too large' },
      });
    });
  });

  describe('strict integers in queries', () => {
    const bad = ['0x10', '1e3', '%205%20', '5.0', '', '+5', '0b11', 'Infinity', '1_0'];
    it(`refuses ${bad.join(' ')} as a limit with 400 VALIDATION_ERROR on every list`, async () => {
      t = await startTestController(database);
      const client = await licensedClient(t);
      const lists = [
        '/api/v1/radius/tickets',
        '/v1/radius/resellers',
        '/v1/radius/vouchers',
        '/api/v1/notifications',
        '/api/v1/radius/sales',
      ];
      for (const list of lists) {
        for (const value of bad) {
          const res = await t.request('GET', `${list}?limit=${value}`, { token: client.token });
          expect(res.status, `${list}?limit=${value}`).to.equal(400);
          expect(res.body.error.code).to.equal('VALIDATION_ERROR');
          expect(res.body.details[0].field).to.equal('limit');
        }
        const offset = await t.request('GET', `${list}?offset=1e1`, { token: client.token });
        expect(offset.status, `${list}?offset=1e1`).to.equal(400);
      }
      for (const list of lists.filter((l) => !l.endsWith('/sales'))) {
        const ok = await t.request('GET', `${list}?limit=16&offset=0`, { token: client.token });
        expect(ok.status, `${list} ${JSON.stringify(ok.body)}`).to.equal(200);
      }
      const year = await t.request('GET', '/api/v1/radius/sales/summary?year=2e3', { token: client.token });
      expect(year.status).to.equal(400);
    });
  });

  describe('texts written to a router', () => {
    it('refuses control characters in profile names, comments, labels and reseller texts', async () => {
      t = await startTestController(database);
      const client = await licensedClient(t);
      const token = client.token;
      const cases: [string, string, unknown][] = [
        ['PUT', '/api/v1/radius/profiles/1h%00500F', { price: 500 }],
        ['PUT', '/api/v1/radius/profiles/1h%0A500F', { price: 500 }],
        ['POST', '/api/v1/radius/tickets', { profile_id: '1h-500F', quantity: 1, comment: 'caisse\u0007' }],
        ['POST', '/api/v1/radius/tickets', { profile_id: '1h-500F\u0000', quantity: 1 }],
        ['POST', '/api/v1/clients/allocations', { label: 'Boutique\r\n/system reset' }],
        ['POST', '/v1/radius/resellers', { username: 'awa', first_name: 'Awa\u0000' }],
        ['POST', '/v1/radius/resellers', { username: 'awa', admin_message: 'a\u2028b' }],
        ['POST', '/v1/radius/resellers', { username: 'awa', last_name: 'Diop\u009b' }],
      ];
      for (const [method, path, body] of cases) {
        const res = await t.request(method, path, { token, body });
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).to.equal(400);
        expect(res.body.error.code).to.equal('VALIDATION_ERROR');
        expect(JSON.stringify(res.body.details)).to.include('control characters');
      }
      const profiles = await t.request('GET', '/api/v1/radius/profiles', { token });
      expect(profiles.body.data).to.have.length(0);
      expect((await t.request('GET', '/api/v1/clients/allocations', { token })).body.data).to.have.length(0);
      expect((await t.request('GET', '/v1/radius/resellers', { token })).body.resellers).to.have.length(0);
      // Accents and emoji are texts like any other.
      const accented = await t.request('PUT', `/api/v1/radius/profiles/${encodeURIComponent('Journée 🌞')}`, {
        token,
        body: { price: 500 },
      });
      expect(accented.status, JSON.stringify(accented.body)).to.equal(200);
    });
  });

  describe('request log', () => {
    it("writes a ticket's route template, never its code", async () => {
      const logs = captureLogs('info');
      t = await startTestController(database, {}, logs.logger);
      const client = await licensedClient(t);
      const token = client.token;
      expect(
        (await t.request('PUT', '/api/v1/radius/profiles/1h', { token, body: { price: 500 } })).status,
      ).to.equal(200);
      const made = await t.request('POST', '/api/v1/radius/tickets', {
        token,
        body: { profile_id: '1h', quantity: 1 },
      });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      const code = JSON.stringify(made.body).match(/"code":"([a-z2-9]{8})"/)![1]!;
      const path = `/api/v1/radius/tickets/${code}`;
      expect((await t.request('PATCH', path, { token, body: { status: 'DISABLED' } })).status).to.equal(200);
      expect((await t.request('GET', path, { token })).status).to.equal(405);
      expect((await t.request('PATCH', path, { token, body: { status: 'NOPE' } })).status).to.equal(400);
      const lines = logs.lines.filter((l) => l.includes('"msg":"request"'));
      expect(lines.length).to.be.at.least(5);
      for (const line of logs.lines) expect(line).to.not.include(code);
      const routes = logs.records().map((r) => r.route);
      expect(routes.filter((r) => r === '/api/v1/radius/tickets/:code')).to.have.length(3);
    });
  });
});
