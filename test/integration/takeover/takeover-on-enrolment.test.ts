// The reseller takeover a router's RADIUS enrolment starts by itself: the centre reads and takes
// over the router's resellers, balances and movements without any upload, the enrolment never
// waits on it nor fails with it, and the takeover route replays it without changing anything.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { done, fleetExport, FLEET_SERIAL, seededFleet, startSite, type Site } from './takeover-fixture.js';

/** `radius.status` of a router that ran this provisioning script. */
function appliedStatus(script: string) {
  const line = script.split('\n').find((l) => l.startsWith('/radius add '))!;
  const prop = (name: string) => new RegExp(`${name}="?([^"\\s]+)`).exec(line)![1]!;
  return {
    radius: [
      {
        address: prop('address'),
        service: ['hotspot'],
        secret_sha256: createHash('sha256').update(prop('secret')).digest('hex'),
        authentication_port: Number(prop('authentication-port')),
        accounting_port: Number(prop('accounting-port')),
        comment: prop('comment'),
        disabled: false,
      },
    ],
    hotspot_profiles: [{ name: 'hsprof1', use_radius: true, radius_accounting: true, in_use: true }],
    incoming_accept: true,
  };
}

forEachDatabase('reseller takeover started by a router enrolment', (database) => {
  let site: Site;
  let exports: number;

  beforeEach(async () => {
    site = await startSite(database);
    const { truths, tags } = seededFleet();
    exports = 0;
    site.answers.set('resellers.export', () => {
      exports++;
      return done(fleetExport(truths, tags));
    });
    site.answers.set('router.script.apply', (c) => done({ name: c.params.name, duration_ms: 5 }));
    // The router's serial, as its agent's facts report gives it: what POST /nas finds it by.
    const { t } = site.h;
    await t.controller.services.allocations.recordFacts(
      site.allocationId,
      { serial: FLEET_SERIAL },
      t.clock.now().toISOString(),
    );
  });

  afterEach(async () => {
    const { t } = site.h;
    await t.controller.services.takeover.settled();
    const rows = await t.db.db.selectFrom('resellers').select(['client_id', 'username']).execute();
    for (const r of rows) {
      const check = await t.controller.services.resellers.ledgerCheck(r.client_id, r.username);
      expect(check.ledger, `ledger of ${r.username}`).to.equal(check.balance);
    }
    await t.close();
  });

  const api = (method: string, path: string, body?: unknown) =>
    site.h.t.request(method, path, { token: site.h.client.token, ...(body !== undefined ? { body } : {}) });
  const enrol = (body: Record<string, unknown> = {}) =>
    api('POST', '/api/v1/radius/nas', { router_serial: FLEET_SERIAL, ...body });
  const replay = () => api('POST', '/v1/radius/resellers/takeover', { allocation_id: site.allocationId });
  const snapshot = async () => ({
    resellers: (await api('GET', '/v1/radius/resellers')).body.resellers,
    ledger: await site.h.t.db.db.selectFrom('reseller_ledger').selectAll().orderBy('id').execute(),
  });

  for (const applyMode of ['server', 'app_apply'] as const) {
    it(`takes the resellers over when the router enrols (${applyMode}); a replay changes nothing`, async () => {
      const res = await enrol(applyMode === 'app_apply' ? { apply_mode: 'app_apply' } : {});
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      if (applyMode === 'app_apply') {
        // The app applies the script; nothing reaches the router until verify finds it applied.
        await site.h.t.controller.services.takeover.settled();
        expect(exports).to.equal(0);
        site.answers.set('radius.status', () => done(appliedStatus(res.body.provisioning.script)));
        const verified = await api('POST', `/api/v1/radius/nas/${res.body.nas.id}/verify`);
        expect(verified.body.verified, JSON.stringify(verified.body)).to.equal(true);
      }
      await site.h.t.controller.services.takeover.settled();
      expect(exports).to.equal(1);

      const after = await snapshot();
      expect(after.resellers).to.have.length(9);
      expect(after.ledger.filter((l) => l.type === 'IMPORT')).to.have.length(90);

      const again = await replay();
      expect(again.status, JSON.stringify(again.body)).to.equal(200);
      expect(again.body.imported).to.deep.equal({
        resellers_created: 0,
        resellers_existing: 9,
        resellers_skipped: 0,
        movements_imported: 0,
        movements_skipped: 90,
      });
      expect(again.body.differences).to.deep.equal([]);
      expect(await snapshot()).to.deep.equal(after);
    });
  }

  it('enrols even when the automatic takeover fails, and the route then replays it', async () => {
    const fleet = site.answers.get('resellers.export')!;
    site.answers.set('resellers.export', () => ({
      status: 'FAILED',
      fault: { code: 'ROUTER_UNREACHABLE', message: 'router did not answer', retryable: true },
    }));
    const res = await enrol();
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.nas.status).to.equal('ACTIVE');
    await site.h.t.controller.services.takeover.settled();
    expect((await snapshot()).resellers).to.deep.equal([]);

    site.answers.set('resellers.export', fleet);
    const replayed = await replay();
    expect(replayed.status, JSON.stringify(replayed.body)).to.equal(200);
    expect(replayed.body.imported.resellers_created).to.equal(9);
    // Enrolled again: the automatic run is a replay now, and changes nothing.
    const before = await snapshot();
    expect((await enrol()).status).to.equal(201);
    await site.h.t.controller.services.takeover.settled();
    expect(await snapshot()).to.deep.equal(before);
  });
});
