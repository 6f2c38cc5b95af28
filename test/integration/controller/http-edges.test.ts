// The edges of the HTTP surface: bodies that are not JSON, methods a route does not have, OPTIONS,
// oversized headers, strict integers in queries, control characters in texts bound for a router,
// and ticket codes kept out of the request log.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
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
});
