import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

const DAY = 86_400_000;

forEachDatabase('licences', (database) => {
  let t: TestController;
  beforeEach(async () => (t = await startTestController(database)));
  afterEach(async () => t.close());

  const grant = (token: string, body: unknown) =>
    t.request('POST', '/api/v1/admin/licences', { token, body });

  it('holds the catalogue as data, with only the published prices', async () => {
    const res = await t.request('GET', '/api/v1/licences/plans');
    const byCode = Object.fromEntries(res.body.data.map((p: { code: string }) => [p.code, p]));
    expect(Object.keys(byCode).sort()).to.deep.equal([
      'MONITORING_MONTHLY',
      'RADIUS_ANNUAL',
      'SATELLITE_X_ANNUAL',
      'SUIVI_PRO_ESSENTIEL',
      'SUIVI_PRO_ETENDU',
    ]);
    expect(byCode.SUIVI_PRO_ESSENTIEL).to.include({ max_devices: 10, price_xof: 3100, period: 'monthly' });
    expect(byCode.SUIVI_PRO_ETENDU).to.include({ max_devices: 30, price_xof: 10000, period: 'monthly' });
    expect(byCode.RADIUS_ANNUAL).to.include({ product_code: 'RADIUS', period: 'annual', duration_days: 365 });
    expect(byCode.RADIUS_ANNUAL.price_xof).to.equal(null);
    expect(byCode.MONITORING_MONTHLY).to.include({ product_code: 'MONITORING', period: 'monthly' });
  });

  it('grants a licence that the client sees and the guard honours, until it expires', async () => {
    const admin = await t.admin();
    const client = await t.account('client');
    const { licences } = t.controller.services;
    expect(await licences.status(client.id, 'RADIUS')).to.deep.equal({
      active: false,
      code: 'RADIUS_LICENSE_INACTIVE',
    });
    expect(await licences.status(client.id, 'MONITORING')).to.deep.equal({
      active: false,
      code: 'LICENSE_INACTIVE',
    });

    const res = await grant(admin.token, { client_id: client.id, plan_code: 'RADIUS_ANNUAL' });
    expect(res.status).to.equal(201);
    expect(res.body.data).to.include({
      client_id: client.id,
      plan_code: 'RADIUS_ANNUAL',
      product_code: 'RADIUS',
      status: 'ACTIVE',
    });
    expect(res.body.data.starts_at).to.equal(t.clock.now().toISOString());
    expect(new Date(res.body.data.expires_at).getTime() - t.clock.now().getTime()).to.equal(365 * DAY);

    const mine = await t.request('GET', '/api/v1/clients/licences', { token: client.token });
    expect(mine.body.data).to.have.length(1);
    expect(await licences.status(client.id, 'RADIUS')).to.deep.equal({ active: true });
    await licences.requireActive(client.id, 'RADIUS');

    t.clock.advance(366 * DAY);
    expect(await licences.status(client.id, 'RADIUS')).to.deep.equal({ active: false, code: 'EXPIRED' });
    const err = await licences.requireActive(client.id, 'RADIUS').catch((e) => e);
    expect(err).to.include({ code: 'EXPIRED', status: 403 });
  });

  it('starts a renewal where the current licence ends', async () => {
    const admin = await t.admin();
    const client = await t.account('client');
    const first = await grant(admin.token, { client_id: client.id, plan_code: 'SUIVI_PRO_ESSENTIEL' });
    const second = await grant(admin.token, { client_id: client.id, plan_code: 'SUIVI_PRO_ETENDU' });
    expect(second.body.data.starts_at).to.equal(first.body.data.expires_at);
  });

  it("keeps one client's licence away from another", async () => {
    const admin = await t.admin();
    const a = await t.account('client');
    const b = await t.account('client');
    await grant(admin.token, { client_id: a.id, plan_code: 'RADIUS_ANNUAL' });
    expect((await t.controller.services.licences.status(b.id, 'RADIUS')).active).to.equal(false);
    expect((await t.request('GET', '/api/v1/clients/licences', { token: b.token })).body.data).to.deep.equal(
      [],
    );
  });

  it('refuses bad grants and grants nothing', async () => {
    const admin = await t.admin();
    const client = await t.account('client');
    const tech = await t.account('technician');
    const cases: [unknown, number, string][] = [
      [{ client_id: client.id, plan_code: 'GOLD' }, 400, 'PLAN_NOT_FOUND'],
      [
        { client_id: '00000000-0000-4000-8000-000000000000', plan_code: 'RADIUS_ANNUAL' },
        404,
        'CLIENT_NOT_FOUND',
      ],
      [{ client_id: tech.id, plan_code: 'RADIUS_ANNUAL' }, 400, 'NOT_A_CLIENT'],
      [{ client_id: 'abc', plan_code: 'RADIUS_ANNUAL' }, 400, 'VALIDATION_ERROR'],
      [{ client_id: client.id }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const res = await grant(admin.token, body);
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(res.body.error.code).to.equal(code);
    }
    const clientTry = await grant(client.token, { client_id: client.id, plan_code: 'RADIUS_ANNUAL' });
    expect(clientTry.status).to.equal(403);
    expect(clientTry.body.error.code).to.equal('FORBIDDEN');
    expect((await grant('', { client_id: client.id, plan_code: 'RADIUS_ANNUAL' })).status).to.equal(401);
    expect(
      (await t.request('GET', '/api/v1/clients/licences', { token: client.token })).body.data,
    ).to.deep.equal([]);
  });
});
