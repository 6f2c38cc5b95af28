// Reports from the agent's outbox: stored once by id however often they are resent, acked every time.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { SAMPLE_FACTS } from '../../support/fake-agent.js';
import { startHub, type HubTest } from './hub-fixture.js';

forEachDatabase('agent reports', (database) => {
  let h: HubTest;
  beforeEach(async () => (h = await startHub(database)));
  afterEach(async () => h.t.close());

  const stored = (id: string) =>
    h.t.db.db.selectFrom('agent_reports').selectAll().where('id', '=', id).execute();

  it('stores a report resent three times once, and acks each copy', async () => {
    const agent = await h.enrolledAgent();
    const link = agent.link!;
    const report = {
      id: randomUUID(),
      kind: 'telemetry' as const,
      at: '2026-11-21T07:59:00.000Z',
      data: { cpu: 12 },
    };
    for (let i = 0; i < 3; i++) link.send('report', report);
    link.send('ping', { t: 1 });
    await link.waitFor('pong');
    const acks = link.frames.filter((f) => f.type === 'report_ack');
    expect(acks.map((f) => f.body)).to.deep.equal([
      { ids: [report.id] },
      { ids: [report.id] },
      { ids: [report.id] },
    ]);
    const rows = await stored(report.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({
      allocation_id: agent.allocationId,
      kind: 'telemetry',
      at: report.at,
      received_at: h.t.clock.now().toISOString(),
    });
    expect(JSON.parse(rows[0]!.data)).to.deep.equal({ cpu: 12 });

    // A resend over a new connection (the ack was lost with the old one) is stored once too.
    await link.close();
    h.t.clock.advance(1000);
    const again = await agent.connect();
    again.send('report', report);
    await again.waitFor('report_ack');
    expect(await stored(report.id)).to.deep.equal(rows);
  });

  it('updates the facts from a facts report, and an older facts report never overwrites newer ones', async () => {
    const agent = await h.enrolledAgent();
    const link = agent.link!;
    const newer = { ...SAMPLE_FACTS, free_hdd_bytes: 10_000_000 };
    link.send('report', { id: randomUUID(), kind: 'facts', at: '2026-11-21T08:00:00.000Z', data: newer });
    link.send('report', {
      id: randomUUID(),
      kind: 'facts',
      at: '2026-11-21T07:00:00.000Z',
      data: { ...SAMPLE_FACTS, routeros_version: '7.1', free_hdd_bytes: 99 },
    });
    // Partial facts leave the other columns as they were.
    link.send('report', {
      id: randomUUID(),
      kind: 'facts',
      at: '2026-11-21T08:05:00.000Z',
      data: { free_hdd_bytes: 9_000_000 },
    });
    link.send('ping', { t: 2 });
    await link.waitFor('pong');
    const { router } = await h.allocation(agent.allocationId!);
    expect(router).to.deep.equal({
      serial: SAMPLE_FACTS.serial,
      identity: SAMPLE_FACTS.identity,
      model: SAMPLE_FACTS.model,
      routeros_version: SAMPLE_FACTS.routeros_version,
      architecture: SAMPLE_FACTS.architecture,
      board_name: SAMPLE_FACTS.board_name,
      free_hdd_bytes: 9_000_000,
      total_hdd_bytes: SAMPLE_FACTS.total_hdd_bytes,
      updated_at: '2026-11-21T08:05:00.000Z',
    });
  });

  it('keeps a facts report whose data does not fit the schema, without touching the facts', async () => {
    const agent = await h.enrolledAgent();
    const link = agent.link!;
    const id = randomUUID();
    link.send('report', {
      id,
      kind: 'facts',
      at: '2026-11-21T08:00:00.000Z',
      data: { free_hdd_bytes: 'lots' },
    });
    await link.waitFor('report_ack');
    expect(await stored(id)).to.have.length(1);
    expect((await h.allocation(agent.allocationId!)).router.free_hdd_bytes).to.equal(null);
  });
});
