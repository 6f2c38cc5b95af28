// The kick's refusals and the action route, behind fake agents: bad bodies, another client's NAS
// (answered as a NAS that does not exist) or action, no licence, the wrong kind of token, a session id that names no open session; each
// records nothing and sends the router nothing. A kick is the only QoE path that sends a command:
// alerts and the daily report send none, read or change (the agent's command log is checked).
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { eventually } from '../hub/hub-fixture.js';
import { startQoeTest, type QoeSite, type QoeTest } from './qoe-fixture.js';

const GIB = 2 ** 30;
const OTHER_UUID = '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b';

forEachDatabase('qoe kick: refusals and the action route', (database) => {
  let t: QoeTest;
  let a: QoeSite;
  beforeEach(async () => {
    t = await startQoeTest(database);
    a = await t.qoeSite('QOE-KICK');
    // The takeover that follows an enrolment reads the router on its own: let it finish first.
    await t.t.controller.services.takeover.settled();
  });
  afterEach(async () => t?.t.close());

  const kick = (body: unknown, token: string | null = t.client.token) =>
    t.t.request('POST', '/api/v1/radius/qoe/actions/kick', { body, ...(token ? { token } : {}) });
  const recorded = async () =>
    Number(
      (
        await t.t.db.db
          .selectFrom('qoe_actions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const expectNothing = async (commandsBefore: number) => {
    expect(await recorded()).to.equal(0);
    expect(t.commandsOf(a).length).to.equal(commandsBefore);
  };

  it('refuses a bad body with 400 VALIDATION_ERROR and records nothing', async () => {
    const before = t.commandsOf(a).length;
    const bodies: [string, unknown][] = [
      ['empty', {}],
      ['no username', { nas_id: a.nasId }],
      ['no nas_id', { username: 'ali' }],
      ['nas_id not a uuid', { nas_id: 'nas-1', username: 'ali' }],
      ['empty username', { nas_id: a.nasId, username: '' }],
      ['blank username', { nas_id: a.nasId, username: '   ' }],
      ['username with a line break', { nas_id: a.nasId, username: 'ali\n/system reboot' }],
      ['username too long', { nas_id: a.nasId, username: 'u'.repeat(129) }],
      ['empty session_id', { nas_id: a.nasId, username: 'ali', session_id: '' }],
      ['session_id not text', { nas_id: a.nasId, username: 'ali', session_id: 42 }],
      ['another field', { nas_id: a.nasId, username: 'ali', client_id: t.client.id }],
      ['not an object', ['ali']],
    ];
    for (const [why, body] of bodies) {
      const res = await kick(body);
      expect(res.status, why).to.equal(400);
      expect(res.body.error.code, why).to.equal('VALIDATION_ERROR');
    }
    await expectNothing(before);
  });

  it("answers 404 for another client's NAS, an unknown one, or a session id not open; 403 without licence or as another kind", async () => {
    const before = t.commandsOf(a).length;
    const other = await t.t.account('client');
    await t.license(other.id);
    let res = await kick({ nas_id: a.nasId, username: 'ali' }, other.token);
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('NAS_NOT_FOUND');
    res = await kick({ nas_id: OTHER_UUID, username: 'ali' });
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('NAS_NOT_FOUND');
    // No open accounting session with this id for this user on this NAS.
    res = await kick({ nas_id: a.nasId, username: 'ali', session_id: '81f00001' });
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('QOE_SESSION_NOT_FOUND');

    const unlicensed = await t.t.account('client');
    res = await kick({ nas_id: a.nasId, username: 'ali' }, unlicensed.token);
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('RADIUS_LICENSE_INACTIVE');

    const technician = await t.t.account('technician');
    res = await kick({ nas_id: a.nasId, username: 'ali' }, technician.token);
    expect(res.status).to.equal(403);
    res = await kick({ nas_id: a.nasId, username: 'ali' }, t.admin.token);
    expect(res.status).to.equal(403);
    res = await kick({ nas_id: a.nasId, username: 'ali' }, null);
    expect(res.status).to.equal(401);
    // The NAS's bridge token is no client token either.
    res = await t.t.request('POST', '/api/v1/radius/qoe/actions/kick', {
      body: { nas_id: a.nasId, username: 'ali' },
      headers: { 'x-vpn-bridge-token': a.bridgeToken },
    });
    expect(res.status).to.equal(401);
    await expectNothing(before);
  });

  it("answers another client's NAS as a NAS that does not exist, even with the session open there; nothing recorded, queued or sent", async () => {
    // The user really is on that router: an open accounting session the owner could kick.
    await t.t.db.db
      .insertInto('radius_sessions')
      .values({
        id: 'rs-ali',
        client_id: t.client.id,
        nas_id: a.nasId,
        ticket_code: 'ali',
        acct_session_id: '81f00001',
        started_at: '2026-11-21T07:00:00.000Z',
        updated_at: '2026-11-21T07:55:00.000Z',
        stopped_at: null,
        input_octets: 0,
        input_gigawords: 0,
        output_octets: 0,
        output_gigawords: 0,
        total_bytes: 0,
        session_time: 0,
        terminate_cause: null,
        framed_ip: '10.5.50.2',
        calling_station_id: null,
      })
      .execute();
    const queued = async () =>
      Number(
        (
          await t.t.db.db
            .selectFrom('agent_commands')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('allocation_id', '=', a.allocationId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const queuedBefore = await queued();
    const sentBefore = t.commandsOf(a).length;
    const other = await t.t.account('client');
    await t.license(other.id);

    const unknown = await kick({ nas_id: OTHER_UUID, username: 'ali' }, other.token);
    expect(unknown.status).to.equal(404);
    for (const body of [
      { nas_id: a.nasId, username: 'ali' },
      { nas_id: a.nasId, username: 'ali', session_id: '81f00001' },
    ]) {
      const res = await kick(body, other.token);
      expect(res.status, JSON.stringify(body)).to.equal(404);
      // Word for word the answer for a NAS that does not exist: nothing tells the NAS is someone's.
      expect(res.body, JSON.stringify(body)).to.deep.equal(unknown.body);
    }
    expect(unknown.body.error.code).to.equal('NAS_NOT_FOUND');

    // A reconciler pass finds nothing to dispatch either.
    const admin = await t.t.admin();
    const run = await t.t.request('POST', '/api/v1/admin/jobs/QOE_KICK_RECONCILE/run', {
      token: admin.token,
    });
    expect(run.status, JSON.stringify(run.body)).to.be.oneOf([200, 202]);
    expect(await recorded()).to.equal(0);
    expect(await queued()).to.equal(queuedBefore);
    expect(t.commandsOf(a).length).to.equal(sentBefore);
    // The owner's own kick of that session goes through: the refusal was about the tenant alone.
    expect((await kick({ nas_id: a.nasId, username: 'ali', session_id: '81f00001' })).status).to.equal(202);
  });

  it('records a kick as RUNNING, readable by its client only, and queues one command for the router', async () => {
    const before = t.commandsOf(a).length;
    const res = await kick({ nas_id: a.nasId, username: 'ali' });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const action = res.body as Record<string, unknown>;
    expect(action).to.include({
      success: true,
      type: 'POD_DISCONNECT',
      state: 'RUNNING',
      nas_id: a.nasId,
      username: 'ali',
      session_id: null,
      method: 'HOTSPOT_ACTIVE_REMOVE',
      reason: null,
      ended_by: null,
      finished_at: null,
    });
    expect(await recorded()).to.equal(1);
    const sent = await eventually(
      async () => t.commandsOf(a).slice(before),
      (names) => names.length > 0,
      5_000,
    );
    expect(sent).to.deep.equal(['hotspot.active.remove']);

    const read = await t.get(`/actions/${String(action.id)}`);
    expect(read.status).to.equal(200);
    expect(read.body).to.include({ id: action.id, type: 'POD_DISCONNECT', nas_id: a.nasId });

    const other = await t.t.account('client');
    await t.license(other.id);
    const hidden = await t.get(`/actions/${String(action.id)}`, other.token);
    expect(hidden.status).to.equal(404);
    expect(hidden.body.error.code).to.equal('QOE_ACTION_NOT_FOUND');
    expect((await t.get(`/actions/${OTHER_UUID}`)).status).to.equal(404);
    expect((await t.get('/actions/not-a-uuid')).status).to.equal(400);
  });

  it('sends no command to the router from usage alerts or the daily report', async () => {
    const admin = await t.t.admin();
    const runJob = async (name: string) => {
      const res = await t.t.request('POST', `/api/v1/admin/jobs/${name}/run`, { token: admin.token });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
    };
    await t.t.controller.services.usage.recordTimeZone(t.client.id, a.allocationId, 'UTC');
    const before = t.commandsOf(a).length;
    const at = (iso: string) => t.t.clock.set(new Date(iso));
    at('2026-11-22T10:00:00Z');
    expect((await t.point(a, '2026-11-22T10:00:00Z', 0)).status).to.equal(202);
    at('2026-11-22T10:05:00Z');
    expect((await t.point(a, '2026-11-22T10:05:00Z', 100 * GIB)).status).to.equal(202);
    expect(await t.alerts()).to.have.length.greaterThan(0);
    await runJob('QOE_USAGE_ALERTS');
    at('2026-11-22T23:59:00Z');
    await runJob('QOE_DAILY_REPORT');
    expect((await t.get('/reports')).body.reports).to.have.length(1);
    await runJob('QOE_KICK_RECONCILE');
    await t.t.controller.services.takeover.settled();
    expect(t.commandsOf(a).slice(before)).to.deep.equal([]);
  });
});
