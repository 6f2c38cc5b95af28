// The WAN usage store: bytes filed under each router's own day, for routers in two time zones
// around midnight; a late resend changes nothing.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

forEachDatabase('usage store', (database) => {
  let t: TestController;
  beforeEach(async () => (t = await startTestController(database)));
  afterEach(async () => t?.close());

  it('files bytes under the router day of its own time zone, around midnight', async () => {
    const { id: clientId } = await t.account('client');
    const usage = t.controller.services.usage;
    const point = (allocationId: string, iso: string, total: number, timeZone: string) =>
      usage.ingest({ clientId, allocationId, at: new Date(iso), rxBytes: total, txBytes: 0, timeZone });
    for (const [allocation, zone] of [
      ['router-dakar', 'Africa/Dakar'],
      ['router-lagos', 'Africa/Lagos'],
    ] as const) {
      expect(await point(allocation, '2026-11-21T22:50:00Z', 1000, zone)).to.equal(null);
      expect(await point(allocation, '2026-11-21T22:55:00Z', 1500, zone)).to.equal(500);
      // 23:05 UTC: still the 21st in Dakar, already the 22nd in Lagos.
      expect(await point(allocation, '2026-11-21T23:05:00Z', 1800, zone)).to.equal(300);
      // A late resend of an older reading changes nothing.
      expect(await point(allocation, '2026-11-21T23:00:00Z', 1700, zone)).to.equal(null);
    }
    expect(await usage.dailyTotals(clientId, 'router-dakar', '2026-11-20', '2026-11-23')).to.deep.equal([
      { day: '2026-11-21', bytes: 800 },
    ]);
    expect(await usage.dailyTotals(clientId, 'router-lagos', '2026-11-20', '2026-11-23')).to.deep.equal([
      { day: '2026-11-21', bytes: 500 },
      { day: '2026-11-22', bytes: 300 },
    ]);
    expect(await usage.timeZone('router-lagos')).to.equal('Africa/Lagos');
    expect(await usage.timeZone('never-seen')).to.equal('UTC');
    t.clock.set(new Date('2026-11-21T23:30:00Z'));
    expect(await usage.totals(clientId, 'router-lagos', t.clock.now())).to.deep.equal({
      octetsJour: 300,
      octetsDeuxHeures: 800,
      octetsMois: 800,
      dernierReleve: '2026-11-21T23:05:00.000Z',
    });
    // Another tenant reads nothing of it.
    const other = await t.account('client');
    expect(await usage.totals(other.id, 'router-lagos', t.clock.now())).to.deep.include({ octetsJour: null });
  });

  it('answers with a batch the bytes since a bound of each router it grew, as read once it is written', async () => {
    const { id: clientId } = await t.account('client');
    const usage = t.controller.services.usage;
    const reading = (allocationId: string, iso: string, total: number) => ({
      clientId,
      allocationId,
      at: new Date(iso),
      rxBytes: total,
      txBytes: 0,
    });
    // Buckets before the batch: 10:00 (before the bound's hour) and 11:00 for router-a.
    await usage.ingest(reading('router-a', '2026-11-22T10:50:00Z', 1000));
    await usage.ingest(reading('router-a', '2026-11-22T10:58:00Z', 1100));
    await usage.ingest(reading('router-a', '2026-11-22T11:05:00Z', 1300));
    await usage.ingest(reading('router-b', '2026-11-22T11:05:00Z', 50));
    const since = new Date('2026-11-22T11:10:00Z');
    const { added, recent } = await t.db.db.transaction().execute((trx) =>
      usage.ingestManyWithRecent(
        trx,
        [
          reading('router-a', '2026-11-22T11:10:00Z', 1350),
          reading('router-a', '2026-11-22T11:25:00Z', 1400),
          reading('router-a', '2026-11-22T11:40:00Z', 1450),
          reading('router-a', '2026-11-22T11:55:00Z', 1500),
          // A new bucket, which no snapshot before the batch holds.
          reading('router-a', '2026-11-22T12:05:00Z', 1600),
          // An older reading of router-b and router-c's first: they add nothing, so no sum.
          reading('router-b', '2026-11-22T11:00:00Z', 10),
          reading('router-c', '2026-11-22T11:00:00Z', 10),
        ],
        since,
      ),
    );
    expect(added).to.deep.equal([50, 50, 50, 50, 100, null, null]);
    // router-a: the 11:00 bucket (200 + 4 × 50) and the 12:00 one (100), not the 10:00 one.
    expect([...recent]).to.deep.equal([['router-a', 500]]);
    const after = await usage.bytesSinceMany(new Map([['router-a', clientId]]), since);
    expect(recent.get('router-a')).to.equal(after.get('router-a'));
  });
});
