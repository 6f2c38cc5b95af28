// Reports made while the controller is away wait in the agent's outbox on disk, then reach the
// controller's database exactly once each when it is back, and leave the outbox.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { openDatabase } from '../../controller/db/database.js';
import { forEachDatabase } from '../support/databases.js';
import { SETTLE_MS, Stack, TEST_MS, waitUntil } from './e2e-stack.js';

interface StoredReport {
  id: string;
  allocation_id: string;
  kind: string;
  at: string;
  data: string;
}

interface OutboxReport {
  id: string;
  kind: string;
  at: string;
  data: Record<string, unknown>;
}

const ENTRY = 'test/support/fast-report-agent.ts';

forEachDatabase('e2e: outbox drained after a long disconnect', function (database) {
  this.timeout(TEST_MS);
  let stack: Stack;

  beforeEach(async () => (stack = await Stack.create(database)));
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') console.log(stack.dump());
    await stack.shutdown();
  });

  it('stores every report made while the controller was down once, and empties the outbox', async () => {
    const [, sim] = await Promise.all([
      stack.startController(),
      stack.startSim({ serial: 'C4AD34080808', version: '7.19', users: 6 }),
    ]);
    const client = await stack.api.client();
    // `ticketnet-agent run` reports every 5 minutes at best: this entry runs the same runtime faster.
    const { agent, allocation } = await stack.enrolAgent(client, sim, { entry: ENTRY });
    const controller = stack.controller!;
    expect(await controller.proc.stop('SIGTERM')).to.equal(0);

    // Offline: reports pile up on disk.
    const waiting = await waitUntil(
      async () => {
        const files = await agent.outbox();
        return files.length >= 12 ? files : undefined;
      },
      SETTLE_MS,
      'reports to pile up in the outbox',
    );
    expect(agent.alive).to.equal(true);
    const offline: OutboxReport[] = await Promise.all(
      waiting.map(
        async (f) => JSON.parse(await readFile(join(agent.stateDir, 'outbox', f), 'utf8')) as OutboxReport,
      ),
    );
    expect(new Set(offline.map((r) => r.kind))).to.deep.equal(new Set(['telemetry', 'facts']));

    await stack.startController(controller.port);
    // Each offline report leaves the outbox once acknowledged; new ones keep coming and going, so
    // wait for a moment when the outbox is empty.
    await waitUntil(async () => (await agent.outbox()).length === 0, SETTLE_MS, 'the outbox to empty', 10);
    expect(agent.logs('link ready')).to.have.length(2);

    const { db, close } = await openDatabase(stack.dbUrl);
    try {
      for (const report of offline) {
        const rows: StoredReport[] = await db
          .selectFrom('agent_reports')
          .select(['id', 'allocation_id', 'kind', 'at', 'data'])
          .where('id', '=', report.id)
          .execute();
        expect(rows, `report ${report.id}`).to.have.length(1);
        expect(rows[0]).to.include({ allocation_id: allocation.id, kind: report.kind, at: report.at });
        expect(JSON.parse(rows[0]!.data)).to.deep.equal(report.data);
      }
      const duplicates = await db
        .selectFrom('agent_reports')
        .select('id')
        .groupBy('id')
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute();
      expect(duplicates).to.deep.equal([]);
    } finally {
      await close();
    }

    // The newest offline facts report is what the allocation shows now (or a newer one).
    const lastFacts = offline.filter((r) => r.kind === 'facts').at(-1)!;
    const view = await stack.api.allocation(client, allocation.id);
    expect(view.link_state).to.equal('CONNECTED');
    expect(Date.parse(view.router.updated_at!)).to.be.at.least(Date.parse(lastFacts.at));
  });
});
