// POST /v1/radius/resellers/takeover with a fake agent on a real socket answering resellers.export
// with the simulator's fleet (9 resellers, 90 movements, tags naming non-resellers).
import { expect } from 'chai';
import type { ResellerTruth } from '../../routeros-sim/reseller-fleet.js';
import { forEachDatabase } from '../../support/databases.js';
import { eventually } from '../hub/hub-fixture.js';
import { done, fleetExport, FLEET_SERIAL, seededFleet, startSite, type Site } from './takeover-fixture.js';

const normalise = (s: string) => s.toLowerCase().replace(/\s+/g, '');

forEachDatabase('reseller takeover from routers', (database) => {
  let site: Site;
  let truths: ResellerTruth[];
  let tags: Record<string, number>;

  beforeEach(async () => {
    site = await startSite(database);
    ({ truths, tags } = seededFleet());
    site.answers.set('resellers.export', () => done(fleetExport(truths, tags)));
  });

  // Ledger = balance (and never negative) for every reseller, after every test.
  afterEach(async () => {
    const { t } = site.h;
    const rows = await t.db.db.selectFrom('resellers').select(['client_id', 'username']).execute();
    for (const r of rows) {
      const check = await t.controller.services.resellers.ledgerCheck(r.client_id, r.username);
      expect(check.ledger, `ledger of ${r.username}`).to.equal(check.balance);
      expect(check.balance).to.be.at.least(0);
    }
    await t.close();
  });

  const api = (method: string, path: string, body?: unknown, token = site.h.client.token) =>
    site.h.t.request(method, `/v1/radius${path}`, { token, ...(body !== undefined ? { body } : {}) });
  const takeover = (token?: string, allocationId = site.allocationId) =>
    api('POST', '/resellers/takeover', { allocation_id: allocationId }, token);
  const resellers = async () => (await api('GET', '/resellers')).body.resellers as Record<string, unknown>[];
  const ledgerRows = () => site.h.t.db.db.selectFrom('reseller_ledger').selectAll().execute();

  it('creates the 9 resellers with the router balances and imports the 90 movements, ledger = balance', async () => {
    const res = await takeover();
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({
      success: true,
      allocation_id: site.allocationId,
      router_serial: FLEET_SERIAL,
    });
    expect(res.body.imported).to.deep.equal({
      resellers_created: 9,
      resellers_existing: 0,
      resellers_skipped: 0,
      movements_imported: 90,
      movements_skipped: 0,
    });
    expect(res.body.differences).to.deep.equal([]);

    const list = await resellers();
    expect(list).to.have.length(9);
    for (const truth of truths) {
      const username = normalise(truth.routerName);
      const r = list.find((x) => x.username === username)!;
      expect(r, username).to.include({
        balance: truth.balance,
        commission_rate: truth.commissionRate,
        first_name: truth.firstName,
        last_name: truth.lastName,
        phone: truth.phone || null,
        email: truth.email || null,
        disabled: truth.disabled,
        imported_from_router_at: site.h.t.clock.now().toISOString(),
        created_on_router_at: truth.createdOn ? `${truth.createdOn}T00:00:00.000Z` : null,
        max_batch_size: 100,
        max_users_total: 1000,
      });
      expect(JSON.stringify(r)).to.not.match(/password/);
      const lines = (await api('GET', `/resellers/${encodeURIComponent(username)}/transactions?limit=1000`))
        .body.transactions as { type: string; amount: number; balance_after: number; created_at: string }[];
      // Newest first: the last line ends at the router's balance.
      expect(lines[0]!.balance_after, username).to.equal(truth.balance);
      const imported = lines.filter((l) => l.type === 'IMPORT').reverse();
      expect(imported.map((l) => l.amount)).to.deep.equal(truth.movements.map((m) => m.amount));
      expect(imported.map((l) => l.created_at)).to.deep.equal(truth.movements.map((m) => m.at.toISOString()));
      const opening = lines.filter((l) => l.type === 'OPENING');
      const kept = truth.movements.reduce((s, m) => s + m.amount, 0);
      expect(opening.map((l) => l.amount)).to.deep.equal(
        truth.balance === kept ? [] : [truth.balance - kept],
      );
    }
    // The reseller who lost older movements opens with what they left.
    const awa = res.body.resellers.find((r: { username: string }) => r.username === 'awa');
    expect(awa).to.include({ status: 'CREATED', movements_imported: 20 });
    expect(awa.opening_xof).to.not.equal(0);

    const rows = await ledgerRows();
    const keys = rows.filter((l) => l.type === 'IMPORT').map((l) => l.idempotency_key);
    expect(keys).to.have.length(90);
    expect(
      keys.every((k) => /^txn_\d{13}_[a-z0-9]{5}$/.test(k)),
      'ids trimmed',
    ).to.equal(true);
    expect(rows.filter((l) => l.type === 'OPENING').map((l) => l.idempotency_key)).to.deep.equal([
      `opening:${FLEET_SERIAL}`,
    ]);
  });

  it('never creates a reseller from tags; lists the tag names that are not resellers', async () => {
    const res = await takeover();
    expect(res.body.unknown_tags).to.deep.equal(['admin', 'gérant', 'ticketnet']);
    const names = (await resellers()).map((r) => r.username);
    for (const tag of ['admin', 'gérant', 'ticketnet']) expect(names).to.not.include(tag);
    const khady = res.body.tags.find((t: { name: string }) => t.name === 'khady');
    expect(khady).to.include({ reseller: true });
    expect(khady.tickets).to.equal(tags.Khady! + (tags.khady ?? 0));
  });

  it('replayed twice, duplicates nothing and changes nothing', async () => {
    await takeover();
    const before = { resellers: await resellers(), ledger: (await ledgerRows()).length };
    for (let i = 0; i < 2; i++) {
      site.h.t.clock.advance(1000);
      const again = await takeover();
      expect(again.status).to.equal(200);
      expect(again.body.imported).to.deep.equal({
        resellers_created: 0,
        resellers_existing: 9,
        resellers_skipped: 0,
        movements_imported: 0,
        movements_skipped: 90,
      });
      expect(again.body.differences).to.deep.equal([]);
    }
    expect((await ledgerRows()).length).to.equal(before.ledger);
    expect(await resellers()).to.deep.equal(before.resellers);
  });

  it('does not overwrite a reseller changed centrally after the takeover; reports the difference', async () => {
    await takeover();
    expect((await api('POST', '/resellers/awa/topup', { amount: 1000, reason: 'centre' })).status).to.equal(
      200,
    );
    expect((await api('PUT', '/resellers/moussa', { commission_rate: 15, disabled: true })).status).to.equal(
      200,
    );
    const awaTruth = truths.find((r) => r.routerName === 'Awa')!;

    const again = await takeover();
    expect(again.body.imported.movements_imported).to.equal(0);
    expect(again.body.differences).to.deep.equal([
      {
        username: 'awa',
        router_balance: awaTruth.balance,
        central_balance: awaTruth.balance + 1000,
        gap: 1000,
        reason: 'CENTRAL_BALANCE_DIFFERS',
      },
    ]);
    const list = await resellers();
    expect(list.find((r) => r.username === 'awa')).to.include({ balance: awaTruth.balance + 1000 });
    expect(list.find((r) => r.username === 'moussa')).to.include({ commission_rate: 15, disabled: true });
  });

  it('adds only the movements the router recorded since, as the window of 20 slides', async () => {
    await takeover();
    const awa = truths.find((r) => r.routerName === 'Awa')!;
    const fresh = [
      { id: 'txn_1790000000000_new01', amount: 5000, kind: 'recharge' as const, at: new Date(1790000000000) },
      {
        id: 'txn_1790000100000_new02 ',
        amount: -1000,
        kind: 'achat' as const,
        note: '2x 500F',
        at: new Date(1790000100000),
      },
    ];
    // The router keeps its last 20: the two oldest fall out, two new ones come in.
    awa.movements = [...awa.movements.slice(2), ...fresh];
    awa.balance += 4000;

    const again = await takeover();
    expect(again.body.imported).to.include({ movements_imported: 2, movements_skipped: 88 });
    expect(again.body.differences).to.deep.equal([]);
    const r = (await resellers()).find((x) => x.username === 'awa')!;
    expect(r).to.include({ balance: awa.balance });
    const lines = (await api('GET', '/resellers/awa/transactions?limit=2')).body.transactions;
    expect(lines.map((l: { amount: number; reason: string }) => [l.amount, l.reason])).to.deep.equal([
      [-1000, 'router achat: 2x 500F'],
      [5000, 'router recharge'],
    ]);
    // A third run adds nothing more.
    expect((await takeover()).body.imported.movements_imported).to.equal(0);
  });

  it('imports nothing into a reseller the centre created itself, and reports it', async () => {
    expect((await api('POST', '/resellers', { username: 'khady', balance: 700 })).status).to.equal(201);
    const res = await takeover();
    expect(res.body.imported).to.include({ resellers_created: 8, resellers_existing: 1 });
    const khady = truths.find((r) => r.routerName === 'khady')!;
    expect(res.body.imported.movements_imported).to.equal(90 - khady.movements.length);
    expect(res.body.differences).to.deep.equal([
      {
        username: 'khady',
        router_balance: khady.balance,
        central_balance: 700,
        gap: 700 - khady.balance,
        reason: 'NOT_TAKEN_OVER',
      },
    ]);
    expect((await resellers()).find((r) => r.username === 'khady')).to.include({
      balance: 700,
      imported_from_router_at: null,
    });
  });

  it('does not bring back a reseller deleted centrally', async () => {
    await takeover();
    expect((await api('DELETE', '/resellers/ousmane')).status).to.equal(200);
    const again = await takeover();
    expect(again.body.imported).to.include({ resellers_created: 0, resellers_existing: 9 });
    expect(
      again.body.differences.map((d: { username: string; reason: string }) => [d.username, d.reason]),
    ).to.deep.equal([['ousmane', 'DELETED_CENTRALLY']]);
    expect((await resellers()).map((r) => r.username)).to.not.include('ousmane');
  });

  it('imports no new movement that would overdraw a reseller spent down centrally', async () => {
    await takeover();
    const fatou = truths.find((r) => r.routerName === 'FATOU ')!;
    await site.h.t.db.db
      .updateTable('resellers')
      .set({ balance: 0 })
      .where('username', '=', 'fatou')
      .execute();
    // Keep ledger = balance for the afterEach check: the spend happened through a ledger line.
    const last = await site.h.t.db.db
      .selectFrom('reseller_ledger')
      .innerJoin('resellers', 'resellers.id', 'reseller_ledger.reseller_id')
      .select([
        'reseller_ledger.reseller_id',
        'reseller_ledger.client_id',
        (eb) => eb.fn.max('line_no').as('n'),
      ])
      .where('resellers.username', '=', 'fatou')
      .groupBy(['reseller_ledger.reseller_id', 'reseller_ledger.client_id'])
      .executeTakeFirstOrThrow();
    await site.h.t.db.db
      .insertInto('reseller_ledger')
      .values({
        id: '00000000-0000-4000-8000-000000000001',
        client_id: last.client_id,
        reseller_id: last.reseller_id,
        line_no: Number(last.n) + 1,
        type: 'BATCH',
        amount: -fatou.balance,
        reason: 'spent',
        balance_after: 0,
        idempotency_key: 'spent',
        created_at: site.h.t.clock.now().toISOString(),
      })
      .execute();
    fatou.movements.push({
      id: 'txn_1790000000000_debit',
      amount: -500,
      kind: 'achat',
      at: new Date(1790000000000),
    });
    fatou.balance -= 500;
    const again = await takeover();
    const diff = again.body.differences.find((d: { username: string }) => d.username === 'fatou');
    expect(diff).to.include({ reason: 'WOULD_OVERDRAW', central_balance: 0 });
    expect(again.body.imported.movements_imported).to.equal(0);
  });

  it('skips an account it cannot read, creating nothing for it', async () => {
    site.answers.set('resellers.export', () => {
      const out = fleetExport(truths, tags);
      out.accounts[0] = { ...out.accounts[0]!, balance: null, warnings: ['no bal'] };
      return done(out);
    });
    const res = await takeover();
    expect(res.body.imported).to.include({
      resellers_created: 8,
      resellers_skipped: 1,
      movements_imported: 70,
    });
    expect(res.body.resellers[0]).to.include({
      username: 'awa',
      status: 'SKIPPED',
      skip_reason: 'NO_BALANCE',
    });
    expect(res.body.resellers[0].warnings).to.deep.equal(['no bal']);
    expect((await resellers()).map((r) => r.username)).to.not.include('awa');
    // A skipped account is still a reseller on the router: its tags are not "unknown".
    expect(res.body.unknown_tags).to.not.include('awa');
  });

  it('attributes tickets to a local reseller that does not exist centrally', async () => {
    await site.h.t.controller.services.profiles.setProfile(site.h.client.id, '1h-500F', {
      price_xof: 500,
      time_limit_seconds: 3600,
    });
    await site.h.t.controller.services.tickets.createTickets(site.h.client.id, {
      profileId: '1h-500F',
      quantity: 3,
      resellerName: 'binta',
    });
    const res = await api('GET', '/vouchers?reseller=Binta');
    expect(res.status).to.equal(200);
    expect(res.body.vouchers).to.have.length(3);
    expect(res.body.vouchers.every((v: { reseller_name: string }) => v.reseller_name === 'binta')).to.equal(
      true,
    );
    expect(await resellers()).to.deep.equal([]);
  });

  describe('refusals (nothing changes)', () => {
    afterEach(async () => {
      expect(await resellers()).to.deep.equal([]);
      expect(await ledgerRows()).to.deep.equal([]);
    });

    const bodies: [string, unknown][] = [
      ['no body', undefined],
      ['no allocation_id', {}],
      ['an allocation_id that is not a UUID', { allocation_id: 'router-1' }],
      ['an allocation_id that is a number', { allocation_id: 12 }],
    ];
    for (const [what, body] of bodies) {
      it(`refuses ${what} with 400 VALIDATION_ERROR naming allocation_id`, async () => {
        const res = await api('POST', '/resellers/takeover', body);
        expect(res.status).to.equal(400);
        expect(res.body).to.include({ success: false, code: 'VALIDATION_ERROR' });
        expect(res.body.details.map((d: { field: string }) => d.field)).to.include('allocation_id');
      });
    }

    it('answers 404 for an unknown allocation and for another tenant’s', async () => {
      const unknown = await takeover(undefined, '3f1e4c55-1111-4a2b-9c3d-1234567890ab');
      expect(unknown.status).to.equal(404);
      expect(unknown.body.code).to.equal('ALLOCATION_NOT_FOUND');
      const other = await site.licensedClient();
      const foreign = await takeover(other.token);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.code).to.equal('ALLOCATION_NOT_FOUND');
      expect(site.agent.deliveries.filter((d) => d.name === 'resellers.export')).to.have.length(0);
    });

    it('needs a client token with an active RADIUS licence', async () => {
      expect((await site.h.t.request('POST', '/v1/radius/resellers/takeover', { body: {} })).status).to.equal(
        401,
      );
      const tech = await site.h.t.account('technician');
      expect((await takeover(tech.token)).status).to.equal(403);
      const unlicensed = await site.h.t.account('client');
      const res = await takeover(unlicensed.token);
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('RADIUS_LICENSE_INACTIVE');
    });

    it('refuses at once with 409 VPN_TUNNEL_NOT_CONNECTED when the agent is offline, queueing nothing', async () => {
      await site.agent.link!.close();
      // Offline is what the controller has recorded: until its close handler has written the link
      // down, a request still sees it up and queues the read for the agent's return.
      await eventually(
        () => site.h.allocation(site.allocationId),
        (a) => a.link_state === 'DISCONNECTED',
      );
      const res = await takeover();
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('VPN_TUNNEL_NOT_CONNECTED');
      const queued = await site.h.t.db.db.selectFrom('agent_commands').select('name').execute();
      expect(queued.map((c) => c.name)).to.not.include('resellers.export');
    });

    it('answers 502 ROUTER_COMMAND_FAILED with the fault when the router cannot be read', async () => {
      site.answers.set('resellers.export', () => ({
        status: 'FAILED',
        fault: { code: 'ROUTER_UNREACHABLE', message: 'no route to router', retryable: true },
      }));
      const res = await takeover();
      expect(res.status).to.equal(502);
      expect(res.body.code).to.equal('ROUTER_COMMAND_FAILED');
      expect(res.body.details.fault).to.deep.equal({
        code: 'ROUTER_UNREACHABLE',
        message: 'no route to router',
        retryable: true,
      });
    });

    it('answers 502 when the agent’s output does not match the catalogue', async () => {
      site.answers.set('resellers.export', () => done({ accounts: 'nope' }));
      const res = await takeover();
      expect(res.status).to.equal(502);
      expect(res.body.details.fault.code).to.equal('AGENT_ERROR');
    });
  });
});
