// End to end over real sockets: the controller listening on a port, a RouterOS simulator seeded with
// the reseller fleet and a large sales history, and the real agent runtime between them. The
// takeover and the sales import each run twice; nothing may be duplicated.
import { expect } from 'chai';
import { pino } from 'pino';
import { startAgent } from '../../../agent/runtime/agent-runtime.js';
import { createController } from '../../../controller/controller.js';
import { ManualClock } from '../../../controller/core/clock.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import { forEachDatabase } from '../../support/databases.js';
import { TestController, testConfig } from '../../support/test-controller.js';
import {
  afterTest,
  cleanUp,
  routerSettingsFor,
  SIM_PASSWORD,
  tempStateDir,
  testLogger,
  waitUntil,
} from '../agent/agent-harness.js';

const normalise = (s: string) => s.toLowerCase().replace(/\s+/g, '');

// RouterOS 7 with 10,000+ entries (eleven pages); RouterOS 6 (other date style) with fewer, for time.
for (const [version, SALES] of [
  ['7.19', 10_500],
  ['6.49.10', 2_500],
] as const) {
  forEachDatabase(`takeover and sales registry end to end (RouterOS ${version})`, (database) => {
    let t: TestController;
    let sim: RouterSim;
    let client: { token: string; id: string };
    let allocationId: string;

    before(function () {
      this.timeout(120_000);
    });
    afterEach(async () => {
      await cleanUp();
      await t?.close();
    });

    beforeEach(async function () {
      this.timeout(120_000);
      const db = await database.open();
      // The agent checks deadlines against its own (real) clock: the controller's must agree.
      const clock = new ManualClock(new Date());
      const controller = await createController({
        config: testConfig(),
        logger: pino({ level: 'silent' }),
        clock,
        database: db,
      });
      t = new TestController(controller, clock, db);
      const { port } = await controller.listen();

      sim = new RouterSim({
        serial: 'C4AD34E2E001',
        version,
        password: SIM_PASSWORD,
        seed: { resellerFleet: true, salesScripts: SALES },
      });
      await sim.start();
      afterTest(() => sim.stop());

      client = await t.account('client');
      const admin = await t.admin();
      await t.request('POST', '/api/v1/admin/licences', {
        token: admin.token,
        body: { client_id: client.id, plan_code: 'RADIUS_ANNUAL' },
      });
      const created = await t.request('POST', '/api/v1/clients/allocations', {
        token: client.token,
        body: {},
      });
      allocationId = created.body.data.allocation.id;
      const agent = await startAgent({
        logger: testLogger,
        stateDir: await tempStateDir(),
        controllerUrl: `http://127.0.0.1:${port}`,
        enrolCode: created.body.data.enrolment.code,
        router: routerSettingsFor(sim, { timeoutMs: 15_000 }),
        link: { backoff: { baseMs: 20, capMs: 200 } },
        reports: { telemetryIntervalMs: 3_600_000, factsIntervalMs: 3_600_000, factsMinSpacingMs: 0 },
      });
      afterTest(() => agent.stop());
      await waitUntil(
        async () =>
          (await controller.services.allocations.get(client.id, allocationId)).link_state === 'CONNECTED',
        10_000,
        'the agent link',
      );
    });

    const post = (path: string, body: unknown) => t.request('POST', path, { token: client.token, body });

    it('takes the 9 resellers and 90 movements over twice without duplicating anything', async function () {
      this.timeout(120_000);
      const first = await post('/v1/radius/resellers/takeover', { allocation_id: allocationId });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body.router_serial).to.equal('C4AD34E2E001');
      expect(first.body.imported).to.deep.equal({
        resellers_created: 9,
        resellers_existing: 0,
        resellers_skipped: 0,
        movements_imported: 90,
        movements_skipped: 0,
      });
      expect(first.body.unknown_tags).to.deep.equal(['admin', 'gérant', 'ticketnet']);
      for (const r of first.body.resellers) expect(r.warnings, r.username).to.deep.equal([]);

      const second = await post('/v1/radius/resellers/takeover', { allocation_id: allocationId });
      expect(second.body.imported).to.include({
        resellers_created: 0,
        resellers_existing: 9,
        movements_imported: 0,
      });
      expect(second.body.differences).to.deep.equal([]);

      const list = (await t.request('GET', '/v1/radius/resellers', { token: client.token })).body.resellers;
      expect(list).to.have.length(9);
      for (const truth of sim.seedReport.resellers) {
        const username = normalise(truth.routerName);
        expect(
          list.find((r: { username: string }) => r.username === username),
          username,
        ).to.include({
          balance: truth.balance,
          disabled: truth.disabled,
        });
        const check = await t.controller.services.resellers.ledgerCheck(client.id, username);
        expect(check.ledger, username).to.equal(truth.balance);
      }
      const imports = await t.db.db
        .selectFrom('reseller_ledger')
        .select('idempotency_key')
        .where('type', '=', 'IMPORT')
        .execute();
      expect(imports).to.have.length(90);
      const expected = sim.seedReport.resellers.flatMap((r) => r.movements.map((m) => m.id.trim()));
      expect(imports.map((l) => l.idempotency_key).sort()).to.deep.equal(expected.sort());
    });

    it(`imports ${SALES} sales entries page by page, twice, without duplicates`, async function () {
      this.timeout(120_000);
      const first = await post('/api/v1/radius/sales/import', { allocation_id: allocationId });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body.pages).to.equal(Math.ceil(SALES / 1000));
      // Every seeded entry is a distinct event: all stored, none merged.
      expect(first.body.imported).to.deep.equal({
        entries_read: SALES,
        records_created: SALES,
        records_existing: 0,
        unreadable: 0,
      });

      const second = await post('/api/v1/radius/sales/import', { allocation_id: allocationId });
      expect(second.body.imported).to.include({
        entries_read: SALES,
        records_created: 0,
        records_existing: SALES,
      });
      const rows = await t.db.db.selectFrom('sales_records').select(['type', 'sold_at', 'month']).execute();
      expect(rows).to.have.length(SALES);

      // Every fifth entry the simulator seeds is a reconnection: usage, never money, and never dated.
      const summary = (await t.request('GET', '/api/v1/radius/sales/summary', { token: client.token })).body;
      expect(summary.registry).to.equal('LOCAL_SALES_HISTORY');
      const connexions = rows.filter((r) => r.type === 'CONNEXION');
      expect(connexions.length).to.be.within(SALES / 5 - 50, SALES / 5);
      expect(connexions.every((r) => r.sold_at === null && r.month !== null)).to.equal(true);
      expect(summary.totals.connexions_count).to.equal(connexions.length);
      expect(summary.totals.ventes_count).to.equal(rows.length - connexions.length);
      expect(summary.totals.undated_ventes_count).to.equal(0);
      const monthly = summary.monthly as { ventes_count: number; ventes_xof: number }[];
      expect(monthly.reduce((s, m) => s + m.ventes_count, 0)).to.equal(summary.totals.ventes_count);
      expect(monthly.reduce((s, m) => s + m.ventes_xof, 0)).to.equal(summary.totals.ventes_xof);
    });
  });
}
