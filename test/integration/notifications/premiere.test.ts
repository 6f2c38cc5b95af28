import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { pino } from 'pino';
import { createController, type Controller } from '../../../controller/controller.js';
import { StaticNasDirectory } from '../../../controller/radius/nas-directory.js';
import { forEachDatabase } from '../../support/databases.js';
import { RadiusTestClient } from '../../support/radius-client.js';
import { testConfig } from '../../support/test-controller.js';
import { makeTickets, SECRET, startHarness, type Harness } from '../radius/radius-harness.js';

const ROUTER = 'hap-lobby';

forEachDatabase('RADIUS_PREMIERE_AUTH notifications', (database) => {
  let h: Harness;
  const extra: Controller[] = [];
  const clients: RadiusTestClient[] = [];
  beforeEach(async () => {
    h = await startHarness(database);
    await nameRouter(h.tenant, h.nasEntry.nasId, ROUTER);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const c of extra.splice(0)) await c.close();
    await h.close();
  });

  /** An ACTIVE NAS row with a shortname for the harness NAS id (what the NAS module would hold). */
  async function nameRouter(tenant: { token: string; id: string }, nasId: string, shortname: string) {
    const res = await h.t.request('POST', '/api/v1/clients/allocations', {
      token: tenant.token,
      body: { label: shortname },
    });
    const now = h.t.clock.now().toISOString();
    await h.t.db.db
      .insertInto('nas')
      .values({
        id: nasId,
        client_id: tenant.id,
        allocation_id: res.body.data.allocation.id,
        nasname: `agent:${res.body.data.allocation.id}`,
        shortname,
        secret: SECRET,
        role: 'PRIMARY',
        status: 'ACTIVE',
        apply_mode: 'app_apply',
        router_serial: 'HX1000',
        model: null,
        created_at: now,
        updated_at: now,
        activated_at: now,
        verified_at: now,
        deleted_at: null,
      })
      .execute();
  }

  /** A second controller instance on the same database, RADIUS on its own free ports. */
  async function secondInstance(): Promise<RadiusTestClient> {
    const controller = await createController({
      config: testConfig({
        radiusEnabled: true,
        radiusHost: '127.0.0.1',
        radiusAuthPort: 0,
        radiusAcctPort: 0,
      }),
      logger: pino({ level: 'silent' }),
      clock: h.t.clock,
      database: await h.t.db.openAnother(),
      nasDirectory: new StaticNasDirectory([['127.0.0.1', h.nasEntry]]),
    });
    extra.push(controller);
    await controller.listen();
    const client = new RadiusTestClient({ port: controller.radiusAddresses!.auth.port, secret: SECRET });
    clients.push(client);
    return client;
  }

  const settle = async () => {
    for (const c of [h.t.controller, ...extra]) {
      await c.services.radius.flush();
      await c.services.premiere.idle();
    }
  };
  const premieres = (clientId = h.tenant.id) =>
    h.t.db.db
      .selectFrom('notifications')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('type', '=', 'RADIUS_PREMIERE_AUTH')
      .orderBy('dedup_key')
      .execute();

  it('notifies the first five accepted authentications, naming user and router, then stays silent', async () => {
    const codes = await makeTickets(h, {}, 7);
    const { auth } = h.client();

    // A refusal is no authentication: nothing.
    expect((await auth.pap(codes[0]!, 'wrong-password'))?.code).to.equal('Access-Reject');
    await settle();
    expect(await premieres()).to.deep.equal([]);

    for (const code of codes) {
      h.t.clock.advance(60_000);
      expect((await auth.pap(code, code, [['Calling-Station-Id', 'AA:BB:CC:00:00:01']]))?.code).to.equal(
        'Access-Accept',
      );
    }
    await settle();
    const rows = await premieres();
    expect(rows.map((r) => r.dedup_key)).to.deep.equal([1, 2, 3, 4, 5].map((n) => `premiere:${n}`));
    rows.forEach((row, i) => {
      expect(row.body).to.include(codes[i]!).and.include(ROUTER);
      expect(row).to.include({ in_app: 1, push: 1, push_state: 'PENDING' });
      expect(JSON.parse(row.data)).to.deep.include({
        type: 'RADIUS_PREMIERE_AUTH',
        rank: i + 1,
        username: codes[i],
        nas_id: h.nasEntry.nasId,
        router: ROUTER,
        calling_station_id: 'AA:BB:CC:00:00:01',
      });
    });
    expect(rows[0]!.title).to.equal('Premier client connecté');
    expect(rows[0]!.body).to.equal(`Premier client connecté : ${codes[0]} sur ${ROUTER}.`);

    // The app's inbox shows them.
    const inbox = await h.t.request('GET', '/api/v1/notifications', { token: h.tenant.token });
    expect(inbox.body.unread_count).to.equal(5);

    // Reconnections of the same tickets later: still five.
    for (const code of codes.slice(0, 3)) await auth.pap(code, code);
    await settle();
    expect(await premieres()).to.have.length(5);
  });

  it('names the router by its NAS id when the NAS module does not know it', async () => {
    await h.t.db.db.deleteFrom('nas').execute();
    const [code] = await makeTickets(h, {}, 1);
    const { auth } = h.client();
    await auth.pap(code!, code!);
    await settle();
    const [row] = await premieres();
    expect(row!.body).to.equal(`Premier client connecté : ${code} sur ${h.nasEntry.nasId}.`);
  });

  it('counts per client', async () => {
    const other = await h.t.account('client');
    const otherNas = { nasId: randomUUID(), clientId: other.id, secret: SECRET };
    h.nas.set('127.0.0.2', otherNas);
    await nameRouter(other, otherNas.nasId, 'other-router');
    const [mine] = await makeTickets(h, {}, 1);
    await h.t.controller.services.profiles.setProfile(other.id, 'P1', {
      rate_limit: null,
      data_limit_bytes: null,
      time_limit_seconds: null,
      validity_seconds: null,
    });
    const [theirs] = await h.t.controller.services.tickets.createTickets(other.id, {
      profileId: 'P1',
      quantity: 1,
    });
    await h.client().auth.pap(mine!, mine!);
    await h.client({ localAddress: '127.0.0.2' }).auth.pap(theirs!.code, theirs!.code);
    await settle();
    expect((await premieres()).map((r) => r.dedup_key)).to.deep.equal(['premiere:1']);
    const [otherRow] = await premieres(other.id);
    expect(otherRow!.body).to.include(theirs!.code).and.include('other-router');
  });

  it('never sends a sixth across a restart (a fresh instance) or two instances racing', async () => {
    const codes = await makeTickets(h, {}, 12);
    const { auth } = h.client();
    for (const code of codes.slice(0, 3)) await auth.pap(code, code);
    await settle();
    expect(await premieres()).to.have.length(3);

    // A second instance knows nothing in memory; both now take authentications at once.
    const second = await secondInstance();
    const replies = await Promise.all(
      codes.slice(3).map((code, i) => (i % 2 === 0 ? auth : second).pap(code, code)),
    );
    expect(replies.map((r) => r?.code)).to.deep.equal(Array(9).fill('Access-Accept'));
    await settle();
    const rows = await premieres();
    expect(rows.map((r) => r.dedup_key)).to.deep.equal([1, 2, 3, 4, 5].map((n) => `premiere:${n}`));
    expect(new Set(rows.map((r) => JSON.parse(r.data).username)).size).to.equal(5);
  });
});
