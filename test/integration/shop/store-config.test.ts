// GET, PUT, PATCH /clients/store-config: PATCH keeps what it does not name, the slug is URL-safe and
// unique over all tenants, the merchant key is sealed at rest and never answered.
import { expect } from 'chai';
import { SecretBox } from '../../../controller/core/secret-box.js';
import { forEachDatabase } from '../../support/databases.js';
import { captureLogs, type LogCapture } from '../../support/log-capture.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

const CONFIG = '/api/v1/clients/store-config';
const KEY = 'sk_live_4f9a2c7e1b8d3f6a';

forEachDatabase('shop store configuration', (database) => {
  let t: TestController;
  let client: { token: string; id: string };
  let logs: LogCapture;
  beforeEach(async () => {
    logs = captureLogs('debug');
    t = await startTestController(database, {}, logs.logger);
    client = await t.account('client');
  });
  afterEach(async () => t.close());

  const call = (method: string, body?: unknown, token = client.token) =>
    t.request(method, CONFIG, { token, ...(body !== undefined ? { body } : {}) });
  const get = async (token = client.token) => {
    const res = await call('GET', undefined, token);
    expect(res.status).to.equal(200);
    return res.body.data;
  };

  it('answers empty defaults, replaces with PUT, merges with PATCH', async () => {
    expect(await get()).to.deep.equal({
      display_name: null,
      logo_url: null,
      store_slug: null,
      branding: {},
      plans: [],
      store_settings: { portal_editor: { merchant_key_set: false } },
      updated_at: null,
    });
    let res = await call('PUT', {
      display_name: 'Chez Awa',
      logo_url: 'https://cdn.example.com/logo.png',
      store_slug: 'chez-awa',
      branding: { color: '#ff6600', font: { family: 'Inter', size: 14 } },
      plans: [{ name: '1h', label: 'Une heure' }],
      store_settings: { portal_editor: { provider: 'paydunya', merchant_key: KEY }, currency: 'XOF' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.deep.include({
      display_name: 'Chez Awa',
      store_slug: 'chez-awa',
      store_settings: { portal_editor: { provider: 'paydunya', merchant_key_set: true }, currency: 'XOF' },
    });

    // PATCH: only the named fields; nested objects merge, null removes a key.
    res = await call('PATCH', { branding: { font: { size: 16 }, color: null }, logo_url: null });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const after = await get();
    expect(after).to.deep.include({
      display_name: 'Chez Awa',
      logo_url: null,
      store_slug: 'chez-awa',
      branding: { font: { family: 'Inter', size: 16 } },
      plans: [{ name: '1h', label: 'Une heure' }],
    });
    expect(after.store_settings.portal_editor).to.deep.equal({
      provider: 'paydunya',
      merchant_key_set: true,
    });

    // PUT replaces every field it does not name, but the key changes only when named.
    res = await call('PUT', { display_name: 'Awa 2' });
    expect(res.body.data).to.deep.include({
      display_name: 'Awa 2',
      store_slug: null,
      branding: {},
      plans: [],
    });
    expect(res.body.data.store_settings).to.deep.equal({ portal_editor: { merchant_key_set: true } });
    expect(await t.controller.services.shop.stores.merchantKey(client.id)).to.equal(KEY);
  });

  it('seals the merchant key: never in a body or in clear in the database; null removes it', async () => {
    await call('PUT', { store_settings: { portal_editor: { merchant_key: KEY } } });
    const row = await t.db.db
      .selectFrom('shop_stores')
      .selectAll()
      .where('client_id', '=', client.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).to.not.include(KEY);
    expect(row.merchant_key_sealed).to.be.a('string');
    expect(JSON.stringify(await get())).to.not.include(KEY);
    // A refused body that carries a key does not echo it either, nor does any log line.
    const refused = await call('PATCH', {
      store_settings: { portal_editor: { merchant_key: KEY } },
      extra: 1,
    });
    expect(refused.status).to.equal(400);
    expect(JSON.stringify(refused.body)).to.not.include(KEY);
    expect(logs.lines.length).to.be.greaterThan(0);
    expect(logs.lines.join('\n')).to.not.include(KEY);
    // A GET body sent back (merchant_key_set included) keeps the key and stores no flag.
    const round = await get();
    expect((await call('PUT', round)).status).to.equal(200);
    expect(await t.controller.services.shop.stores.merchantKey(client.id)).to.equal(KEY);
    const stored = await t.db.db
      .selectFrom('shop_stores')
      .select('config_json')
      .where('client_id', '=', client.id)
      .executeTakeFirstOrThrow();
    expect(stored.config_json).to.not.include('merchant_key');
    // Copied to another tenant's row, the sealed key does not open.
    const other = await t.account('client');
    await call('PUT', { display_name: 'X' }, other.token);
    await t.db.db
      .updateTable('shop_stores')
      .set({ merchant_key_sealed: row.merchant_key_sealed })
      .where('client_id', '=', other.id)
      .execute();
    let opened: unknown;
    try {
      opened = await t.controller.services.shop.stores.merchantKey(other.id);
    } catch (err) {
      opened = err;
    }
    expect(opened).to.be.instanceOf(Error);

    await call('PATCH', { store_settings: { portal_editor: { merchant_key: null } } });
    expect((await get()).store_settings.portal_editor.merchant_key_set).to.equal(false);
    expect(await t.controller.services.shop.stores.merchantKey(client.id)).to.equal(null);
  });

  it("seals under the controller's one key (TICKETNET_SECRETS_KEY), bound to the tenant", async () => {
    const keyText = SecretBox.newKeyText();
    const own = await startTestController(database, { secretsKey: keyText });
    try {
      const seller = await own.account('client');
      await own.request('PUT', CONFIG, {
        token: seller.token,
        body: { store_settings: { portal_editor: { merchant_key: KEY } } },
      });
      const row = await own.db.db
        .selectFrom('shop_stores')
        .select('merchant_key_sealed')
        .where('client_id', '=', seller.id)
        .executeTakeFirstOrThrow();
      const box = SecretBox.fromBase64(keyText);
      expect(box.open(row.merchant_key_sealed!, `shop merchant key|${seller.id}`)).to.equal(KEY);
      expect(() => SecretBox.fromBase64(SecretBox.newKeyText()).open(row.merchant_key_sealed!)).to.throw();
    } finally {
      await own.close();
    }
  });

  it('keeps a slug to one tenant (409) and refuses bad input with nothing changed', async () => {
    await call('PUT', { display_name: 'Chez Awa', store_slug: 'chez-awa', branding: { a: 1 } });
    const before = await get();
    const other = await t.account('client');
    const taken = await call('PATCH', { store_slug: 'chez-awa' }, other.token);
    expect(taken.status).to.equal(409);
    expect(taken.body.error.code).to.equal('STORE_SLUG_TAKEN');
    expect((await get(other.token)).store_slug).to.equal(null);
    // The same tenant may send its own slug again.
    expect((await call('PATCH', { store_slug: 'chez-awa' })).status).to.equal(200);

    const bad: unknown[] = [
      { store_slug: 'Chez Awa' },
      { store_slug: 'a' },
      { store_slug: '-awa' },
      { store_slug: 'awa-' },
      { store_slug: 'awa/../x' },
      { store_slug: 'é-awa' },
      { logo_url: 'javascript:alert(1)' },
      { logo_url: 'not a url' },
      { display_name: '' },
      { display_name: 12 },
      { branding: [1, 2] },
      { plans: {} },
      { store_settings: { portal_editor: { merchant_key: 42 } } },
      { store_settings: 'x' },
      { unknown_field: true },
      [],
    ];
    for (const body of bad) {
      for (const method of ['PUT', 'PATCH']) {
        const res = await call(method, body);
        expect(res.status, `${method} ${JSON.stringify(body)}`).to.equal(400);
        expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      }
    }
    const huge = await call('PATCH', { branding: { blob: 'x'.repeat(70_000) } });
    expect(huge.status).to.be.oneOf([400, 413]);
    expect(await get()).to.deep.equal(before);
    expect((await call('GET', undefined, '')).status).to.equal(401);
  });
});
