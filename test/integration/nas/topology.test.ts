// GET /topology, PUT /nas/:id/primary and DELETE /nas/:id: roles, atomic promotion, deletion
// rules, tenant isolation, authentication and licence.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startNasTest, type NasTest } from './nas-fixture.js';

const DAY = 86_400_000;

forEachDatabase('NAS topology', (database) => {
  let t: NasTest;
  beforeEach(async () => (t = await startNasTest(database)));
  // A set-up that failed leaves nothing to close (and must not close the previous test's twice).
  afterEach(async () => {
    const running = t;
    t = undefined as unknown as NasTest;
    await running?.t.close();
  });

  /** Live NAS rows of the test client straight from the database: the invariant checks. */
  const primaries = async (clientId = t.client.id) =>
    (
      await t.t.db.db
        .selectFrom('nas')
        .select(['id', 'status'])
        .where('client_id', '=', clientId)
        .where('role', '=', 'PRIMARY')
        .where('status', '<>', 'DELETED')
        .execute()
    ).map((r) => r.id);

  it('is empty with primary null for a client without NAS, and carries the contract version', async () => {
    const res = await t.radius('GET', '/topology');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      success: true,
      primary: null,
      members: [],
      warnings: [],
      // the client equipment's quota block (docs/api/equipment.md)
      capabilities: {
        can_add_devices: false,
        reason: 'SUIVI_PRO_REQUIRED',
        enforced: false,
        max_devices: null,
        devices_used: 0,
        devices_remaining: null,
      },
    });
    expect(res.headers['x-contract-version']).to.equal('1.0');
  });

  it('makes the first enrolled router PRIMARY and the next ones MEMBERs', async () => {
    const a = await t.site('AAAA0001');
    const b = await t.site('AAAA0002');
    const c = await t.site('AAAA0003');
    const first = await t.enrolActive(a);
    expect(first.nas.role).to.equal('PRIMARY');
    await t.enrolActive(b);
    await t.enrolActive(c);

    const topo = await t.topology();
    expect(topo.primary).to.deep.include({
      id: first.nas.id,
      nasname: `agent:${a.allocationId}`,
      shortname: 'Site-AAAA0001',
      role: 'PRIMARY',
      status: 'ACTIVE',
      tunnel_status: 'CONNECTED',
      sessions_open: 0,
      allocation_id: a.allocationId,
      router_serial: 'AAAA0001',
      model: 'RB951Ui-2HnD',
    });
    expect(topo.primary.eligibility).to.deep.equal({ eligible: true, code: 'ELIGIBLE' });
    expect(topo.members.map((m: { router_serial: string }) => m.router_serial)).to.deep.equal([
      'AAAA0002',
      'AAAA0003',
    ]);
    for (const m of topo.members) expect(m).to.include({ role: 'MEMBER', status: 'ACTIVE' });
    expect(topo.warnings).to.deep.equal([]);
    // Never the secret.
    expect(JSON.stringify(topo)).not.to.match(/secret/i);
  });

  it('counts the open RADIUS sessions of each NAS', async () => {
    const a = await t.site('AAAA0001');
    const { nas } = await t.enrolActive(a);
    const row = (id: string, stopped: string | null) => ({
      id: randomUUID(),
      client_id: t.client.id,
      nas_id: nas.id,
      ticket_code: 'ABCD1234',
      acct_session_id: id,
      started_at: '2026-11-21T07:00:00.000Z',
      updated_at: '2026-11-21T07:00:00.000Z',
      stopped_at: stopped,
      input_octets: 0,
      input_gigawords: 0,
      output_octets: 0,
      output_gigawords: 0,
      total_bytes: 0,
      session_time: 0,
      terminate_cause: null,
      framed_ip: null,
      calling_station_id: null,
    });
    await t.t.db.db
      .insertInto('radius_sessions')
      .values([row('s1', null), row('s2', null), row('s3', '2026-11-21T07:30:00.000Z')])
      .execute();
    expect((await t.topology()).primary.sessions_open).to.equal(2);
  });

  it('shows a router whose agent link is down as not eligible, with a warning for the PRIMARY', async () => {
    const a = await t.site('AAAA0001');
    const b = await t.site('AAAA0002');
    const pa = (await t.enrolActive(a)).nas;
    const pb = (await t.enrolActive(b)).nas;
    await t.disconnect(a);
    await t.disconnect(b);
    const topo = await t.topology();
    expect(topo.primary).to.include({ id: pa.id, tunnel_status: 'DISCONNECTED' });
    expect(topo.primary.eligibility).to.deep.equal({ eligible: false, code: 'TUNNEL_DISCONNECTED' });
    expect(topo.members[0].eligibility).to.deep.equal({ eligible: false, code: 'TUNNEL_DISCONNECTED' });
    expect(topo.warnings.map((w: { code: string; nas_id: string }) => [w.code, w.nas_id])).to.deep.equal([
      ['PRIMARY_TUNNEL_DISCONNECTED', pa.id],
      ['TUNNEL_DISCONNECTED', pb.id],
    ]);
  });

  it('keeps a PENDING enrolment out of the entries, with a warning', async () => {
    const a = await t.site('AAAA0001');
    const res = await t.radius('POST', '/nas', {
      body: { router_serial: 'AAAA0001', apply_mode: 'app_apply' },
    });
    expect(res.status).to.equal(201);
    const topo = await t.topology();
    expect(topo.primary).to.equal(null);
    expect(topo.members).to.deep.equal([]);
    expect(topo.warnings).to.have.length(1);
    expect(topo.warnings[0]).to.include({ code: 'NAS_PENDING_VERIFICATION', nas_id: res.body.nas.id });
    void a;
  });

  describe('promotion', () => {
    it('swaps the roles atomically and answers the previous primary', async () => {
      const a = await t.site('AAAA0001');
      const b = await t.site('AAAA0002');
      const na = (await t.enrolActive(a)).nas;
      const nb = (await t.enrolActive(b)).nas;
      const res = await t.radius('PUT', `/nas/${nb.id}/primary`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        success: true,
        nas_id: nb.id,
        role: 'PRIMARY',
        previous_primary_nas_id: na.id,
        changed: true,
      });
      const topo = await t.topology();
      expect(topo.primary.id).to.equal(nb.id);
      expect(topo.members.map((m: { id: string }) => m.id)).to.deep.equal([na.id]);

      const again = await t.radius('PUT', `/nas/${nb.id}/primary`);
      expect(again.body).to.deep.equal({
        success: true,
        nas_id: nb.id,
        role: 'PRIMARY',
        previous_primary_nas_id: nb.id,
        changed: false,
      });
    });

    it('never leaves two PRIMARY under 10 concurrent promotions', async () => {
      const sites = [];
      for (let i = 0; i < 10; i++) sites.push(await t.site(`BBBB00${String(i).padStart(2, '0')}`));
      const ids: string[] = [];
      for (const s of sites) ids.push((await t.enrolActive(s)).nas.id);
      const answers = await Promise.all(ids.map((id) => t.radius('PUT', `/nas/${id}/primary`)));
      for (const a of answers) expect(a.status, JSON.stringify(a.body)).to.equal(200);
      const now = await primaries();
      expect(now).to.have.length(1);
      const topo = await t.topology();
      expect(topo.primary.id).to.equal(now[0]);
      expect(topo.members).to.have.length(9);
      // Each promotion named the PRIMARY it replaced: they form one chain, none lost.
      expect(answers.filter((a) => a.body.changed)).to.have.length.within(9, 10);
    });

    it('refuses a NAS that is not verified yet (409 NAS_NOT_ACTIVE) and an unknown one (404)', async () => {
      await t.site('AAAA0001');
      const pending = await t.radius('POST', '/nas', {
        body: { router_serial: 'AAAA0001', apply_mode: 'app_apply' },
      });
      const res = await t.radius('PUT', `/nas/${pending.body.nas.id}/primary`);
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.include({ success: false, code: 'NAS_NOT_ACTIVE' });
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const missing = await t.radius('PUT', `/nas/${id}/primary`);
        expect(missing.status).to.equal(404);
        expect(missing.body).to.deep.include({ success: false, code: 'NAS_NOT_FOUND' });
        expect(missing.body.error.code).to.equal('NAS_NOT_FOUND');
      }
    });
  });

  describe('deletion', () => {
    it('refuses to delete the PRIMARY while active members remain (409 with the candidates)', async () => {
      const a = await t.site('AAAA0001');
      const b = await t.site('AAAA0002');
      const c = await t.site('AAAA0003');
      const na = (await t.enrolActive(a)).nas;
      const nb = (await t.enrolActive(b)).nas;
      const nc = (await t.enrolActive(c)).nas;
      const res = await t.radius('DELETE', `/nas/${na.id}`);
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.equal({
        success: false,
        code: 'PRIMARY_NAS_REASSIGN_REQUIRED',
        error: { code: 'PRIMARY_NAS_REASSIGN_REQUIRED', message: res.body.error.message },
        details: { primary_nas_id: na.id, candidate_nas_ids: [nb.id, nc.id] },
      });
      expect((await t.topology()).primary.id).to.equal(na.id);
    });

    it('deletes a MEMBER, then the last NAS; the next enrolled active NAS becomes PRIMARY', async () => {
      const a = await t.site('AAAA0001');
      const b = await t.site('AAAA0002');
      const na = (await t.enrolActive(a)).nas;
      const nb = (await t.enrolActive(b)).nas;
      const del = await t.radius('DELETE', `/nas/${nb.id}`);
      expect(del.status).to.equal(200);
      expect(del.body).to.deep.equal({
        success: true,
        nas_id: nb.id,
        status: 'DELETED',
        previous_role: 'MEMBER',
      });
      expect((await t.topology()).members).to.deep.equal([]);

      const last = await t.radius('DELETE', `/nas/${na.id}`);
      expect(last.status).to.equal(200);
      expect(await t.topology()).to.deep.equal({
        success: true,
        primary: null,
        members: [],
        warnings: [],
        // the client equipment's quota block (docs/api/equipment.md)
        capabilities: {
          can_add_devices: false,
          reason: 'SUIVI_PRO_REQUIRED',
          enforced: false,
          max_devices: null,
          devices_used: 0,
          devices_remaining: null,
        },
      });

      // Deleted is inactive: every route answers 404 for it.
      for (const [method, path] of [
        ['DELETE', `/nas/${na.id}`],
        ['PUT', `/nas/${na.id}/primary`],
        ['GET', `/nas/${na.id}/provisioning`],
        ['POST', `/nas/${na.id}/verify`],
      ] as const) {
        const res = await t.radius(method, path);
        expect(res.status, `${method} ${path}`).to.equal(404);
        expect(res.body.code).to.equal('NAS_NOT_FOUND');
      }

      // Router b enrols again: a new NAS, PRIMARY of the now empty topology.
      const again = await t.enrolActive(b);
      expect(again.nas.id).not.to.equal(nb.id);
      expect(again.nas.role).to.equal('PRIMARY');
      expect((await t.topology()).primary.id).to.equal(again.nas.id);
    });

    it('lets a deleted PRIMARY be replaced by the first member to be verified after it', async () => {
      // A pending member (app_apply) becomes the PRIMARY once verified, after the PRIMARY left.
      const a = await t.site('AAAA0001');
      const b = await t.site('AAAA0002');
      const na = (await t.enrolActive(a)).nas;
      const pending = await t.radius('POST', '/nas', {
        body: { router_serial: 'AAAA0002', apply_mode: 'app_apply' },
      });
      expect(pending.body.nas.role).to.equal('MEMBER');
      expect((await t.radius('DELETE', `/nas/${na.id}`)).status).to.equal(200);
      b.router.apply(pending.body.provisioning.script);
      const verified = await t.radius('POST', `/nas/${pending.body.nas.id}/verify`);
      expect(verified.body.verified).to.equal(true);
      expect(verified.body.nas).to.include({ role: 'PRIMARY', status: 'ACTIVE' });
      expect(await primaries()).to.deep.equal([pending.body.nas.id]);
    });
  });

  it('answers 404 NAS_NOT_FOUND for malformed and unknown ids on every NAS route, changing nothing', async () => {
    const a = await t.site('AAAA0001');
    const { nas } = await t.enrolActive(a);
    const before = await t.topology();
    for (const id of ['not-a-uuid', randomUUID(), `${nas.id}x`, "1' or '1'='1"]) {
      for (const [method, path] of [
        ['DELETE', `/nas/${encodeURIComponent(id)}`],
        ['PUT', `/nas/${encodeURIComponent(id)}/primary`],
        ['GET', `/nas/${encodeURIComponent(id)}/provisioning`],
        ['POST', `/nas/${encodeURIComponent(id)}/verify`],
      ] as const) {
        const res = await t.radius(method, path, { body: { role: 'PRIMARY' } });
        expect(res.status, `${method} ${path}`).to.equal(404);
        expect(res.body).to.deep.equal({
          success: false,
          code: 'NAS_NOT_FOUND',
          error: { code: 'NAS_NOT_FOUND', message: 'No active NAS with this id' },
        });
      }
    }
    expect(await t.topology()).to.deep.equal(before);
  });

  describe('tenants, authentication and licence', () => {
    it("never shows another tenant's NAS and answers 404 for its ids", async () => {
      const other = await t.t.account('client');
      await t.license(other.id);
      const theirs = await t.site('CCCC0001', other.token);
      const nas = (await t.enrolActive(theirs, other.token)).nas;
      expect((await t.topology()).primary).to.equal(null);
      for (const [method, path] of [
        ['DELETE', `/nas/${nas.id}`],
        ['PUT', `/nas/${nas.id}/primary`],
        ['GET', `/nas/${nas.id}/provisioning`],
        ['POST', `/nas/${nas.id}/verify`],
      ] as const) {
        const res = await t.radius(method, path);
        expect(res.status, `${method} ${path}`).to.equal(404);
        expect(res.body).to.deep.include({ success: false, code: 'NAS_NOT_FOUND' });
      }
      // Their router is not ours to enrol: it is not linked to this tenant.
      const enrol = await t.radius('POST', '/nas', { body: { router_serial: 'CCCC0001' } });
      expect(enrol.status).to.equal(409);
      expect(enrol.body.code).to.equal('VPN_TUNNEL_NOT_CONNECTED');
      expect(enrol.body.details.reason).to.equal('ROUTER_NOT_LINKED');
      expect((await t.topology(other.token)).primary.id).to.equal(nas.id);
    });

    it('answers 401 without or with a bad token and 403 for a non-client account', async () => {
      const routes = [
        ['GET', '/topology'],
        ['PUT', `/nas/${randomUUID()}/primary`],
        ['DELETE', `/nas/${randomUUID()}`],
        ['POST', '/nas'],
        ['GET', `/nas/${randomUUID()}/provisioning`],
        ['POST', `/nas/${randomUUID()}/verify`],
      ] as const;
      const technician = await t.t.account('technician');
      for (const [method, path] of routes) {
        const none = await t.radius(method, path, { token: null });
        expect(none.status, `${method} ${path}`).to.equal(401);
        expect(none.body).to.deep.include({ success: false, code: 'UNAUTHENTICATED' });
        const bad = await t.radius(method, path, { token: 'not.a.token' });
        expect(bad.status).to.equal(401);
        const forbidden = await t.radius(method, path, { token: technician.token });
        expect(forbidden.status).to.equal(403);
        expect(forbidden.body.code).to.equal('FORBIDDEN');
        expect(t.admin.token).to.be.a('string');
        const admin = await t.radius(method, path, { token: t.admin.token });
        expect(admin.status).to.equal(403);
      }
    });

    it('answers 403 RADIUS_LICENSE_INACTIVE without a licence and EXPIRED once it ran out', async () => {
      const other = await t.t.account('client');
      const res = await t.radius('GET', '/topology', { token: other.token });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.include({ success: false, code: 'RADIUS_LICENSE_INACTIVE' });
      const enrol = await t.radius('POST', '/nas', { token: other.token });
      expect(enrol.status).to.equal(403);
      expect(enrol.body.code).to.equal('RADIUS_LICENSE_INACTIVE');

      t.t.clock.advance(400 * DAY);
      // A fresh token: the one issued at the start has expired too.
      const login = await t.t.request('POST', '/api/v1/auth/login', {
        body: {
          email: (await t.t.controller.services.accounts.get(t.client.id))!.email,
          password: 'passw0rd-ok',
        },
      });
      const token = login.body.data.token as string;
      const expired = await t.radius('GET', '/topology', { token });
      expect(expired.status).to.equal(403);
      expect(expired.body).to.deep.include({ success: false, code: 'EXPIRED' });
      const del = await t.radius('DELETE', `/nas/${randomUUID()}`, { token });
      expect(del.body.code).to.equal('EXPIRED');
    });
  });
});
