// Reports made while the controller is away wait in the agent's outbox on disk, then reach the
// controller's database exactly once each when it is back, and leave the outbox.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
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

describe('e2e: outbox drained after a long disconnect', function () {
  this.timeout(TEST_MS);
  let stack: Stack;

  beforeEach(async () => (stack = await Stack.create()));
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

    const db = new Database(stack.dbFile, { readonly: true, fileMustExist: true });
    try {
      const count = db.prepare<[string], { n: number }>(
        'SELECT COUNT(*) AS n FROM agent_reports WHERE id = ?',
      );
      const row = db.prepare<[string], StoredReport>('SELECT * FROM agent_reports WHERE id = ?');
      for (const report of offline) {
        expect(count.get(report.id)?.n, `report ${report.id}`).to.equal(1);
        const stored = row.get(report.id)!;
        expect(stored).to.include({ allocation_id: allocation.id, kind: report.kind, at: report.at });
        expect(JSON.parse(stored.data)).to.deep.equal(report.data);
      }
      const duplicates = db
        .prepare('SELECT id, COUNT(*) AS n FROM agent_reports GROUP BY id HAVING COUNT(*) > 1')
        .all();
      expect(duplicates).to.deep.equal([]);
    } finally {
      db.close();
    }

    // The newest offline facts report is what the allocation shows now (or a newer one).
    const lastFacts = offline.filter((r) => r.kind === 'facts').at(-1)!;
    const view = await stack.api.allocation(client, allocation.id);
    expect(view.link_state).to.equal('CONNECTED');
    expect(Date.parse(view.router.updated_at!)).to.be.at.least(Date.parse(lastFacts.at));
  });
});
