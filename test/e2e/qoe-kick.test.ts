// The kick end to end over real sockets (test/support/live-site.ts): the controller, a RouterOS
// 7.19 simulator as the hotspot NAS, and the real agent runtime with its relay, through which the
// router's RADIUS reaches the controller and the controller's Disconnect-Request reaches the
// router's `/radius incoming`. A RADIUS session and a local user's session are each ended, and the
// action is SUCCEEDED only once the simulator has ended the session; a router that acknowledges and
// keeps the session leaves the action RUNNING, then FAILED at the deadline (manual clock).
import { expect } from 'chai';
import { ManualClock } from '../../controller/core/clock.js';
import { KICK_DEADLINE_MS } from '../../controller/modules/qoe/kick-actions.js';
import { forEachDatabase } from '../support/databases.js';
import { freeUdpPort } from '../support/free-port.js';
import { startLiveStack, type LiveSite, type LiveStack } from '../support/live-site.js';
import { eventually } from '../integration/hub/hub-fixture.js';

const SERIAL = 'C0E2E0719';

interface Action {
  id: string;
  type: string;
  state: 'RUNNING' | 'SUCCEEDED' | 'FAILED';
  method: string;
  session_id: string | null;
  router_answer: string | null;
  reason: string | null;
  ended_by: string | null;
}

forEachDatabase('qoe kick on a simulated router (agent relay, /radius incoming)', (database) => {
  let stack: LiveStack;
  let site: LiveSite;
  let clock: ManualClock;
  let nasId: string;
  let seeded: Set<number>;
  afterEach(async () => stack?.close());

  beforeEach(async function () {
    this.timeout(60_000);
    clock = new ManualClock(new Date());
    const [authPort, acctPort, coaPort] = [await freeUdpPort(), await freeUdpPort(), await freeUdpPort()];
    stack = await startLiveStack(database, {
      clock,
      // The provisioning script points the router at the agent's relay on loopback.
      config: {
        radiusRelayAddress: '127.0.0.1',
        radiusRelayAuthPort: authPort,
        radiusRelayAcctPort: acctPort,
      },
    });
    site = await stack.addSite({
      serial: SERIAL,
      relay: { authPort, acctPort, coaPort },
      radiusIncomingPort: coaPort,
    });
    // Server mode: the controller provisions RADIUS (and `/radius incoming accept=yes`) through the agent.
    const nas = await stack.radius('POST', '/nas', { router_serial: SERIAL });
    expect(nas.status, JSON.stringify(nas.body)).to.equal(201);
    nasId = nas.body.nas.id as string;
    expect(await site.sim.radiusIncomingPort()).to.equal(coaPort);
    seeded = new Set(
      site.sim.state
        .table('/ip/hotspot/active')
        .list()
        .map((r) => r.id),
    );
  });

  const ticket = async (): Promise<string> => {
    const { tickets, profiles } = stack.t.controller.services;
    await profiles.setProfile(stack.client.id, 'KICK1H', {
      rate_limit: '2M/2M',
      data_limit_bytes: null,
      time_limit_seconds: 3600,
      validity_seconds: null,
    });
    const [created] = await tickets.createTickets(stack.client.id, { profileId: 'KICK1H', quantity: 1 });
    return created!.code;
  };
  const login = async (user: string, password: string, ip: string, mac: string) => {
    const res = await site.sim.hotspotLogin({ user, password, ip, mac });
    expect(res.ok, JSON.stringify(res)).to.equal(true);
    await site.sim.flushRadius();
    return res;
  };
  /** The active entries of the test's own logins (the simulator seeds a few of its own). */
  const active = () =>
    site.sim.state
      .table('/ip/hotspot/active')
      .list()
      .filter((r) => !seeded.has(r.id))
      .map((r) => ({ user: r.props.user, address: r.props.address }));
  const kick = async (body: Record<string, unknown>): Promise<Action> => {
    const res = await stack.radius('POST', '/qoe/actions/kick', { nas_id: nasId, ...body });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return res.body as unknown as Action;
  };
  const action = async (id: string): Promise<Action> => {
    const res = await stack.radius('GET', `/qoe/actions/${id}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as unknown as Action;
  };
  const reconcile = async () => {
    const admin = await stack.t.admin();
    const res = await stack.t.request('POST', '/api/v1/admin/jobs/QOE_KICK_RECONCILE/run', {
      token: admin.token,
    });
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
  };
  /** The action once its command has come back from the router (the reconciler records the answer). */
  const answered = (id: string) =>
    eventually(
      async () => {
        await reconcile();
        return action(id);
      },
      (a) => a.router_answer !== null || a.state !== 'RUNNING',
      20_000,
    );
  const logouts = (): string[] =>
    site.sim.state
      .table('/log')
      .list()
      .map((r) => r.props.message ?? '')
      .filter((m) => m.includes('logged out'));

  it('ends the RADIUS session named by address, user and session id, not the same user on another host', async function () {
    this.timeout(60_000);
    const code = await ticket();
    await login(code, code, '10.5.50.11', 'AA:BB:CC:00:00:01');
    await login(code, code, '10.5.50.12', 'AA:BB:CC:00:00:02');
    const sessions = await eventually(
      () => stack.t.controller.services.radius.openSession(stack.client.id, nasId, code),
      (s) => s !== null,
      5_000,
    );
    expect(sessions).to.not.equal(null);
    // The first host's session, by the Acct-Session-Id the router gave it.
    const first = site.sim.nas.find('10.5.50.11')!.identity.acctSessionId;

    const started = await kick({ username: code, session_id: first });
    expect(started).to.include({
      type: 'POD_DISCONNECT',
      state: 'RUNNING',
      method: 'RADIUS_DISCONNECT',
      session_id: first,
      reason: null,
    });
    const done = await eventually(
      () => action(started.id),
      (a) => a.state !== 'RUNNING',
      20_000,
    );
    expect(done).to.include({ state: 'SUCCEEDED', ended_by: 'ACCOUNTING_STOP', reason: null });
    expect(active()).to.deep.equal([{ user: code, address: '10.5.50.12' }]);
    expect(logouts().filter((m) => m.includes('10.5.50.11'))).to.have.length(1);
    // Ended by the Disconnect (an administrator's logout, as RouterOS words it), not by the user.
    expect(logouts().find((m) => m.includes('10.5.50.11'))).to.match(/admin logout/);
  });

  it('stays RUNNING while the router acknowledges and keeps the session, SUCCEEDED once it ends', async function () {
    this.timeout(60_000);
    const code = await ticket();
    await login(code, code, '10.5.50.21', 'AA:BB:CC:00:00:21');
    await eventually(
      () => stack.t.controller.services.radius.openSession(stack.client.id, nasId, code),
      (s) => s !== null,
      5_000,
    );
    site.sim.faults.set({ stuckSessions: [code] });
    const started = await kick({ username: code });
    expect(started).to.include({ state: 'RUNNING', method: 'RADIUS_DISCONNECT' });
    // The router's ACK is in, the session still there: an acknowledgement is no success.
    const acked = await answered(started.id);
    expect(acked).to.include({ state: 'RUNNING', router_answer: 'ACK' });
    await reconcile();
    expect(await action(started.id)).to.include({ state: 'RUNNING' });
    expect(active()).to.have.length(1);

    // The session ends on the router (the user logs out): its Stop settles the action.
    site.sim.faults.clear();
    await site.sim.hotspotLogout('10.5.50.21');
    await site.sim.flushRadius();
    const ended = await eventually(
      () => action(started.id),
      (a) => a.state !== 'RUNNING',
      10_000,
    );
    expect(ended).to.include({ state: 'SUCCEEDED', ended_by: 'ACCOUNTING_STOP', router_answer: 'ACK' });
  });

  it('FAILED at the deadline when the RADIUS session never ends', async function () {
    this.timeout(60_000);
    const code = await ticket();
    await login(code, code, '10.5.50.31', 'AA:BB:CC:00:00:31');
    await eventually(
      () => stack.t.controller.services.radius.openSession(stack.client.id, nasId, code),
      (s) => s !== null,
      5_000,
    );
    site.sim.faults.set({ stuckSessions: true });
    const started = await kick({ username: code });
    expect(await answered(started.id)).to.include({ state: 'RUNNING', router_answer: 'ACK' });
    clock.advance(KICK_DEADLINE_MS - 1_000);
    await reconcile();
    expect(await action(started.id)).to.include({ state: 'RUNNING' });
    clock.advance(1_000);
    await reconcile();
    expect(await action(started.id)).to.include({
      state: 'FAILED',
      reason: 'SESSION_END_NOT_SEEN',
      router_answer: 'ACK',
      ended_by: null,
    });
    expect(active()).to.have.length(1);
  });

  it("removes a local user's active entry; SUCCEEDED from the active list, FAILED when it stays or is absent", async function () {
    this.timeout(60_000);
    site.sim.state.table('/ip/hotspot/user').insert({ name: 'local-a', password: 'pa', profile: 'default' });
    site.sim.state.table('/ip/hotspot/user').insert({ name: 'local-b', password: 'pb', profile: 'default' });
    const local = await login('local-a', 'pa', '10.5.50.41', 'AA:BB:CC:00:00:41');
    expect(local.radius).to.equal(false);
    await login('local-b', 'pb', '10.5.50.42', 'AA:BB:CC:00:00:42');

    const started = await kick({ username: 'local-a' });
    expect(started).to.include({ state: 'RUNNING', method: 'HOTSPOT_ACTIVE_REMOVE', session_id: null });
    const done = await answered(started.id);
    expect(done).to.include({ state: 'SUCCEEDED', ended_by: 'ACTIVE_LIST', router_answer: 'REMOVED' });
    expect(active()).to.deep.equal([{ user: 'local-b', address: '10.5.50.42' }]);

    // Kept by the router: RUNNING until the deadline, then FAILED.
    site.sim.faults.set({ stuckSessions: ['local-b'] });
    const kept = await kick({ username: 'local-b' });
    expect(await answered(kept.id)).to.include({ state: 'RUNNING', router_answer: 'KEPT' });
    clock.advance(KICK_DEADLINE_MS);
    await reconcile();
    expect(await action(kept.id)).to.include({
      state: 'FAILED',
      reason: 'SESSION_END_NOT_SEEN',
      router_answer: 'KEPT',
    });
    expect(active()).to.deep.equal([{ user: 'local-b', address: '10.5.50.42' }]);

    // Nobody of that name on the router: nothing to end.
    const nobody = await kick({ username: 'nobody' });
    expect(await answered(nobody.id)).to.include({
      state: 'FAILED',
      reason: 'SESSION_NOT_FOUND',
      router_answer: 'NOT_FOUND',
    });
  });
});
