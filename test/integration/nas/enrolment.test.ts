// POST /nas: input refusals, the agent link check, app_apply, server mode through a fake agent,
// rollback on refusal and timeout, the deployment lock (409 body, Retry-After, 180 s expiry).
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import type { TestResponse } from '../../support/test-controller.js';
import { eventually } from '../hub/hub-fixture.js';
import { secretOf, startNasTest, type NasTest, type Site } from './nas-fixture.js';

forEachDatabase('NAS enrolment', (database) => {
  let t: NasTest;
  // A set-up that failed leaves nothing to close (and must not close the previous test's twice).
  afterEach(async () => {
    const running = t;
    t = undefined as unknown as NasTest;
    await running?.t.close();
  });

  const enrol = (body?: unknown, raw?: string) =>
    t.radius('POST', '/nas', {
      ...(body !== undefined ? { body } : {}),
      ...(raw !== undefined ? { raw, headers: { 'content-type': 'application/json' } } : {}),
    });
  const nasRows = () => t.t.db.db.selectFrom('nas').selectAll().execute();
  const locks = () => t.t.db.db.selectFrom('nas_deployments').selectAll().execute();
  /** The secret of a live NAS, read where only the provisioning script shows it. */
  const secretFor = async (nasId: string) =>
    secretOf((await t.radius('GET', `/nas/${nasId}/provisioning`)).body.script);
  const expectNoSecretIn = async (res: TestResponse) => {
    const rows = await nasRows();
    for (const row of rows) expect(JSON.stringify(res.body)).not.to.include(row.secret);
  };

  describe('input and link', () => {
    beforeEach(async () => (t = await startNasTest(database)));

    it('answers 400 ROUTER_SERIAL_REQUIRED for every body without a usable serial, and changes nothing', async () => {
      const site = await t.site('AAAA0001');
      const cases: [string, () => Promise<TestResponse>][] = [
        ['no body', () => enrol()],
        ['empty object', () => enrol({})],
        ['array', () => enrol([])],
        ['JSON string', () => enrol(undefined, '"AAAA0001"')],
        ['JSON null', () => enrol(undefined, 'null')],
        ['JSON number', () => enrol(undefined, '42')],
        ['broken JSON', () => enrol(undefined, '{"router_serial": ')],
        ['serial null', () => enrol({ router_serial: null })],
        ['serial a number', () => enrol({ router_serial: 42 })],
        ['serial empty', () => enrol({ router_serial: '' })],
        ['serial blank', () => enrol({ router_serial: '   ' })],
        ['serial too long', () => enrol({ router_serial: 'A'.repeat(65) })],
        ['apply_mode only', () => enrol({ apply_mode: 'app_apply' })],
      ];
      for (const [what, send] of cases) {
        const res = await send();
        expect(res.status, what).to.equal(400);
        expect(res.body.success, what).to.equal(false);
        expect(res.body.code, what).to.equal('ROUTER_SERIAL_REQUIRED');
        expect(res.body.error.code, what).to.equal('ROUTER_SERIAL_REQUIRED');
      }
      const badMode = await enrol({ router_serial: 'AAAA0001', apply_mode: 'later' });
      expect(badMode.status).to.equal(400);
      expect(badMode.body).to.deep.include({ success: false, code: 'VALIDATION_ERROR' });
      expect(badMode.body.details).to.deep.equal([
        { field: 'apply_mode', message: "apply_mode must be 'app_apply' or absent" },
      ]);
      expect(await nasRows()).to.deep.equal([]);
      expect(site.agent.deliveries).to.deep.equal([]);
    });

    it('refuses with 409 VPN_TUNNEL_NOT_CONNECTED when the agent link is down or the serial is not linked', async () => {
      const site = await t.site('AAAA0001');
      await t.disconnect(site);
      for (const apply_mode of [undefined, 'app_apply']) {
        const down = await enrol({ router_serial: 'AAAA0001', ...(apply_mode ? { apply_mode } : {}) });
        expect(down.status).to.equal(409);
        expect(down.body).to.deep.include({ success: false, code: 'VPN_TUNNEL_NOT_CONNECTED' });
        expect(down.body.details).to.deep.include({
          router_serial: 'AAAA0001',
          allocation_id: site.allocationId,
          tunnel_status: 'DISCONNECTED',
          reason: 'TUNNEL_DISCONNECTED',
        });
      }
      const unknown = await enrol({ router_serial: 'FFFF9999' });
      expect(unknown.status).to.equal(409);
      expect(unknown.body.code).to.equal('VPN_TUNNEL_NOT_CONNECTED');
      expect(unknown.body.details).to.deep.include({ allocation_id: null, reason: 'ROUTER_NOT_LINKED' });
      expect(await nasRows()).to.deep.equal([]);
    });

    it('matches the serial without regard to case or surrounding spaces', async () => {
      await t.site('ABCD0001');
      const res = await enrol({ router_serial: ' abcd0001 ', apply_mode: 'app_apply' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.nas.router_serial).to.equal('ABCD0001');
    });
  });

  describe('app_apply', () => {
    beforeEach(async () => (t = await startNasTest(database)));

    it('answers 201 with the NAS and the provisioning block, takes no lock and sends nothing', async () => {
      const site = await t.site('AAAA0001');
      const res = await enrol({ router_serial: 'AAAA0001', apply_mode: 'app_apply' });
      expect(res.status).to.equal(201);
      const { nas, provisioning } = res.body;
      expect(res.body).to.include({ success: true, apply_mode: 'app_apply' });
      expect(nas).to.deep.include({
        nasname: `agent:${site.allocationId}`,
        shortname: 'Site-AAAA0001',
        role: 'PRIMARY',
        status: 'PENDING',
        tunnel_status: 'CONNECTED',
        router_serial: 'AAAA0001',
        allocation_id: site.allocationId,
      });
      expect(nas.eligibility).to.deep.equal({ eligible: false, code: 'NOT_VERIFIED' });
      expect(provisioning).to.include({
        required: true,
        endpoint: `/api/v1/radius/nas/${nas.id}/provisioning`,
        verify_endpoint: `/api/v1/radius/nas/${nas.id}/verify`,
      });
      expect(provisioning.script).to.include(`comment="ticketnet:${nas.id}"`);
      expect(secretOf(provisioning.script)).to.equal((await nasRows())[0]!.secret);
      expect(site.agent.deliveries).to.deep.equal([]);
      expect(await locks()).to.deep.equal([]);

      // Again: the same NAS (one per router), still nothing sent.
      const again = await enrol({ router_serial: 'AAAA0001', apply_mode: 'app_apply' });
      expect(again.status).to.equal(201);
      expect(again.body.nas.id).to.equal(nas.id);
      expect(again.body.provisioning.script).to.equal(provisioning.script);
      expect(await nasRows()).to.have.length(1);
      expect(site.agent.deliveries).to.deep.equal([]);
    });

    it('serves the provisioning script of a NAS: RADIUS entry, hotspot profiles, CoA; never cached', async () => {
      const site = await t.site('AAAA0001');
      const { body } = await enrol({ router_serial: 'AAAA0001', apply_mode: 'app_apply' });
      const res = await t.radius('GET', `/nas/${body.nas.id}/provisioning`);
      expect(res.status).to.equal(200);
      expect(res.headers['cache-control']).to.equal('no-store');
      expect(res.headers['x-contract-version']).to.equal('1.0');
      expect(res.body).to.deep.include({
        success: true,
        nas_id: body.nas.id,
        apply_mode: 'app_apply',
        status: 'PENDING',
        script_name: 'ticketnet-radius',
        script: body.provisioning.script,
      });
      expect(res.body.radius).to.deep.equal({
        transport: 'relay',
        address: '172.31.255.2',
        authentication_port: 1812,
        accounting_port: 1813,
        timeout: '3s',
        interim_update_seconds: 300,
      });
      const lines = (res.body.script as string).split('\n');
      const secret = secretOf(res.body.script);
      expect(secret).to.match(/^[0-9a-f]{40}$/);
      expect(lines).to.include('/radius remove [find comment~"ticketnet:"]');
      expect(lines).to.include(
        `/radius add address=172.31.255.2 secret="${secret}" service=hotspot authentication-port=1812` +
          ` accounting-port=1813 timeout=3s comment="ticketnet:${body.nas.id}"`,
      );
      expect(lines).to.include(
        '/ip hotspot profile set [find] use-radius=yes radius-accounting=yes radius-interim-update=300s',
      );
      expect(lines).to.include('/radius incoming set accept=yes');
      void site;
    });

    it('is verified once the app applied the script, and becomes ACTIVE', async () => {
      const site = await t.site('AAAA0001');
      const { body } = await enrol({ router_serial: 'AAAA0001', apply_mode: 'app_apply' });
      const before = await t.radius('POST', `/nas/${body.nas.id}/verify`);
      expect(before.status).to.equal(200);
      expect(before.body).to.deep.include({ success: true, verified: false, reason: null, deployment: null });
      expect(before.body.checks).to.deep.equal({
        tunnel_connected: true,
        radius_entry_present: false,
        secret_matches: false,
        hotspot_uses_radius: false,
        accounting_enabled: true,
        incoming_accepted: false,
      });
      expect(before.body.nas.status).to.equal('PENDING');

      site.router.apply(body.provisioning.script);
      const after = await t.radius('POST', `/nas/${body.nas.id}/verify`);
      expect(after.body.verified).to.equal(true);
      expect(Object.values(after.body.checks).every((v) => v === true)).to.equal(true);
      expect(after.body.nas).to.include({ status: 'ACTIVE', role: 'PRIMARY' });
      expect((await t.topology()).primary.id).to.equal(body.nas.id);
    });
  });

  describe('server mode', () => {
    beforeEach(async () => (t = await startNasTest(database)));

    it('synchronises the profiles, applies the script through the agent, and answers 201 ACTIVE', async () => {
      const site = await t.site('AAAA0001');
      const res = await enrol({ router_serial: 'AAAA0001' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body).to.include({ success: true, apply_mode: 'server' });
      expect(res.body.nas).to.include({ role: 'PRIMARY', status: 'ACTIVE', router_serial: 'AAAA0001' });
      expect(res.body.provisioning).to.deep.include({ required: false });
      expect(res.body.provisioning).not.to.have.property('script');
      expect(res.body.deployment).to.include({ status: 'COMPLETED' });
      expect(res.body.sync).to.deep.equal({
        local_accounts: 1,
        profiles: 2,
        profiles_inserted: 2,
        profiles_updated: 0,
      });
      await expectNoSecretIn(res);
      // Export first, then the script; the router now carries this NAS's secret. The reseller
      // takeover the enrolment starts comes after.
      await t.t.controller.services.takeover.settled();
      expect(site.agent.deliveries.map((d) => d.name)).to.deep.equal([
        'hotspot.users.export',
        'router.script.apply',
        'resellers.export',
      ]);
      expect(site.agent.deliveries[0]!.params).to.deep.equal({ include_profiles: true });
      expect(site.router.radius).to.have.length(1);
      expect(site.router.radius[0]).to.include({
        address: '172.31.255.2',
        authPort: 1812,
        acctPort: 1813,
        comment: `ticketnet:${res.body.nas.id}`,
        secret: await secretFor(res.body.nas.id),
      });
      const profiles = await t.t.controller.services.profiles.listProfiles(t.client.id);
      expect(profiles.map((p) => [p.name, p.rate_limit, p.source])).to.deep.equal([
        ['1h', '2M/4M', 'ROUTER'],
        ['default', null, 'ROUTER'],
      ]);
      expect(await locks()).to.deep.equal([]);
      const verify = await t.radius('POST', `/nas/${res.body.nas.id}/verify`);
      expect(verify.body.verified).to.equal(true);
    });

    it('re-provisions an enrolled router in place: same NAS and secret', async () => {
      const site = await t.site('AAAA0001');
      const first = await t.enrolActive(site);
      const secret = await secretFor(first.nas.id);
      site.router.radius[0]!.secret = 'tampered';
      const again = await enrol({ router_serial: 'AAAA0001' });
      expect(again.status).to.equal(201);
      expect(again.body.nas.id).to.equal(first.nas.id);
      expect(site.router.radius).to.have.length(1);
      expect(site.router.radius[0]!.secret).to.equal(secret);
    });

    it('answers 502 RADIUS_PROVISION_ERROR when the router refuses the script, and rolls the NAS back', async () => {
      const site = await t.site('AAAA0001');
      site.router.refuse = {
        command: 'router.script.apply',
        code: 'ROUTER_TRAP',
        message: 'failure: not enough permissions (line 4 column 1)',
      };
      const res = await enrol({ router_serial: 'AAAA0001' });
      expect(res.status).to.equal(502);
      expect(res.body).to.deep.include({ success: false, code: 'RADIUS_PROVISION_ERROR' });
      expect(res.body.details).to.deep.include({ step: 'APPLY', rolled_back: true });
      expect(res.body.details.fault).to.deep.equal({
        code: 'ROUTER_TRAP',
        message: 'failure: not enough permissions (line 4 column 1)',
      });
      await expectNoSecretIn(res);
      const rows = await nasRows();
      expect(rows.map((r) => r.status)).to.deep.equal(['DELETED']);
      expect(await locks()).to.deep.equal([]);
      expect((await t.topology()).primary).to.equal(null);
      expect((await t.radius('POST', `/nas/${res.body.details.nas_id}/verify`)).status).to.equal(404);

      // The router accepts it now: a retry enrols again (a new NAS).
      site.router.refuse = undefined;
      const retry = await enrol({ router_serial: 'AAAA0001' });
      expect(retry.status).to.equal(201);
      expect(retry.body.nas.id).not.to.equal(res.body.details.nas_id);
    });

    it('answers 502 when the agent cannot reach the router during the synchronisation', async () => {
      const site = await t.site('AAAA0001');
      site.router.refuse = {
        command: 'hotspot.users.export',
        code: 'ROUTER_UNREACHABLE',
        message: 'router 192.168.88.1:8728: connect ECONNREFUSED',
      };
      const res = await enrol({ router_serial: 'AAAA0001' });
      expect(res.status).to.equal(502);
      expect(res.body.details).to.deep.include({ step: 'SYNC', rolled_back: true });
      expect(site.agent.deliveries.map((d) => d.name)).to.deep.equal(['hotspot.users.export']);
      expect((await nasRows()).map((r) => r.status)).to.deep.equal(['DELETED']);
    });

    it('keeps a router enrolled before when its re-provisioning fails', async () => {
      const site = await t.site('AAAA0001');
      const first = await t.enrolActive(site);
      site.router.refuse = { command: 'router.script.apply', code: 'ROUTER_TRAP', message: 'failure: busy' };
      const res = await enrol({ router_serial: 'AAAA0001' });
      expect(res.status).to.equal(502);
      expect((await t.topology()).primary.id).to.equal(first.nas.id);
    });
  });

  describe('bridge timeout', () => {
    beforeEach(async () => (t = await startNasTest(database, { nasBridgeTimeoutMs: 400 })));

    it('answers 503 RADIUS_BRIDGE_UNAVAILABLE when the agent does not answer in time, and rolls back', async () => {
      const site = await t.site('AAAA0001');
      site.agent.withholdResults = true;
      const res = await enrol({ router_serial: 'AAAA0001' });
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.include({ success: false, code: 'RADIUS_BRIDGE_UNAVAILABLE' });
      expect(res.body.details).to.deep.include({ step: 'SYNC', waited_ms: 400, rolled_back: true });
      await expectNoSecretIn(res);
      expect((await nasRows()).map((r) => r.status)).to.deep.equal(['DELETED']);
      expect(await locks()).to.deep.equal([]);
      // The command was given the same deadline: a late agent refuses it rather than run it.
      const command = site.agent.deliveries[0]!;
      expect(Date.parse(command.deadline) - t.t.clock.now().getTime()).to.equal(400);
    });

    it('verify reports the bridge as unavailable instead of failing', async () => {
      const site = await t.site('AAAA0001');
      const { body } = await enrol({ router_serial: 'AAAA0001', apply_mode: 'app_apply' });
      site.agent.withholdResults = true;
      const res = await t.radius('POST', `/nas/${body.nas.id}/verify`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.include({ verified: false });
      expect(res.body.reason.code).to.equal('RADIUS_BRIDGE_UNAVAILABLE');
      expect(res.body.checks).to.include({ tunnel_connected: true, radius_entry_present: null });
    });
  });

  describe('deployment lock', () => {
    // Short heartbeats keep the link fresh when the manual clock jumps.
    beforeEach(
      async () => (t = await startNasTest(database, { nasBridgeTimeoutMs: 3000 }, { heartbeatMs: 100 })),
    );

    /** Holds the agent's results until `release` (what a router busy for 10 s looks like). */
    const hold = (site: Site) => {
      site.agent.withholdResults = true;
      return () => {
        site.agent.withholdResults = false;
        for (const d of site.agent.deliveries) {
          const answer = site.agent.journal.get(d.id);
          if (answer) site.agent.link!.send('result', { id: d.id, ...answer } as never);
        }
      };
    };
    const connected = (site: Site) =>
      eventually(
        () => t.allocation(site.allocationId),
        (a) => a.link_state === 'CONNECTED',
      );

    const expectInProgress = (res: TestResponse, nasId: string, startedAt: string) => {
      expect(res.status).to.equal(409);
      expect(res.headers['retry-after']).to.equal('15');
      expect(res.body).to.deep.equal({
        success: false,
        code: 'DEPLOYMENT_IN_PROGRESS',
        error: { code: 'DEPLOYMENT_IN_PROGRESS', message: res.body.error.message },
        idempotent: true,
        nas: {
          id: nasId,
          nasname: res.body.nas.nasname,
          shortname: 'Site-AAAA0001',
          status: 'PENDING',
          provisioning: {
            required: true,
            endpoint: `/api/v1/radius/nas/${nasId}/provisioning`,
            verify_endpoint: `/api/v1/radius/nas/${nasId}/verify`,
          },
        },
        details: {
          nas_id: nasId,
          started_at: startedAt,
          retry_after_seconds: 15,
          deployment: { status: 'DEPLOYING', started_at: startedAt },
        },
      });
      expect(res.body.error.message).to.be.a('string').and.not.equal('');
    };

    it('lets one of five concurrent enrolments deploy; the others get 409 with the exact body', async () => {
      const site = await t.site('AAAA0001');
      const release = hold(site);
      let settled = 0;
      const posts = Array.from({ length: 5 }, () =>
        enrol({ router_serial: 'AAAA0001' }).finally(() => settled++),
      );
      const loser = await Promise.race(posts);
      const rows = await nasRows();
      expect(rows).to.have.length(1);
      expectInProgress(loser, rows[0]!.id, (await locks())[0]!.started_at);
      await expectNoSecretIn(loser);
      // app_apply takes no lock: it answers at once even now.
      const app = await enrol({ router_serial: 'AAAA0001', apply_mode: 'app_apply' });
      expect(app.status).to.equal(201);
      expect(app.body.nas.id).to.equal(rows[0]!.id);
      // DELETE waits for the deployment too.
      const del = await t.radius('DELETE', `/nas/${rows[0]!.id}`);
      expect(del.status).to.equal(409);
      expect(del.body.code).to.equal('DEPLOYMENT_IN_PROGRESS');
      // Verify answers at once (not verified yet) and shows the deployment.
      const verifying = await t.radius('POST', `/nas/${rows[0]!.id}/verify`);
      expect(verifying.status).to.equal(200);
      expect(verifying.body).to.deep.include({ verified: false });
      expect(verifying.body.reason.code).to.equal('DEPLOYMENT_IN_PROGRESS');
      expect(verifying.body.deployment).to.deep.equal({
        status: 'DEPLOYING',
        started_at: (await locks())[0]!.started_at,
      });

      await eventually(
        async () => site.agent.deliveries.length,
        (n) => n >= 1,
      );
      // The four others have met the lock (on a loaded machine one may still be on its way).
      await eventually(
        async () => settled,
        (n) => n >= 4,
      );
      release();
      const all = await Promise.all(posts);
      expect(all.map((r) => r.status).sort()).to.deep.equal([201, 409, 409, 409, 409]);
      for (const res of all.filter((r) => r.status === 409)) {
        expectInProgress(res, rows[0]!.id, res.body.details.started_at);
        await expectNoSecretIn(res);
      }
      const winner = all.find((r) => r.status === 201)!;
      expect(winner.body.nas).to.include({ id: rows[0]!.id, status: 'ACTIVE' });
      expect(site.agent.deliveries.filter((d) => d.name === 'router.script.apply')).to.have.length(1);
      expect(await locks()).to.deep.equal([]);
    });

    it('holds the lock 180 s at most: the next enrolment takes over an expired one', async () => {
      const site = await t.site('AAAA0001');
      hold(site);
      const first = enrol({ router_serial: 'AAAA0001' });
      await eventually(
        async () => site.agent.deliveries.length,
        (n) => n === 1,
      );
      const [lock] = await locks();
      const nasId = lock!.nas_id!;

      t.t.clock.advance(179_000);
      await connected(site);
      expectInProgress(await enrol({ router_serial: 'AAAA0001' }), nasId, lock!.started_at);

      t.t.clock.advance(1_000);
      await connected(site);
      site.agent.withholdResults = false;
      const takeover = await enrol({ router_serial: 'AAAA0001' });
      expect(takeover.status, JSON.stringify(takeover.body)).to.equal(201);
      // The cancelled deployment's NAS is the one completed.
      expect(takeover.body.nas).to.include({ id: nasId, status: 'ACTIVE' });
      expect(await locks()).to.deep.equal([]);

      // The first request gives up later; its lock is not its own any more: nothing undone.
      const late = await first;
      expect(late.status).to.equal(503);
      expect((await t.topology()).primary.id).to.equal(nasId);
    });

    it('is cancelled by the sweep job once expired: the NAS it created goes, nothing half done', async () => {
      const site = await t.site('AAAA0001');
      hold(site);
      const first = enrol({ router_serial: 'AAAA0001' });
      await eventually(
        async () => site.agent.deliveries.length,
        (n) => n === 1,
      );
      const run = () =>
        t.t.request('POST', '/api/v1/admin/jobs/NAS_DEPLOYMENT_SWEEP/run', { token: t.admin.token });
      let swept = await run();
      expect(swept.status, JSON.stringify(swept.body)).to.equal(200);
      expect(await locks()).to.have.length(1);

      t.t.clock.advance(180_000);
      swept = await run();
      expect(JSON.stringify(swept.body)).to.include('"cancelled":1');
      expect(await locks()).to.deep.equal([]);
      expect((await nasRows()).map((r) => r.status)).to.deep.equal(['DELETED']);
      expect((await first).status).to.equal(503);
      expect((await nasRows()).map((r) => r.status)).to.deep.equal(['DELETED']);
    });
  });
});
