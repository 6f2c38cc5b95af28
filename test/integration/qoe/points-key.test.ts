// A NAS's stored points are found through their one (nas_id, observed_at) key: every read names the
// NAS, so no second index is written for each stored point; migration 0073 drops the old one and
// puts it back going down.
import { expect } from 'chai';
import type { Db } from '../../../controller/db/database.js';
import { migrateDatabase } from '../../../controller/modules/build-modules.js';
import * as m0073 from '../../../controller/modules/qoe/migrations/0073-qoe-points-one-key.js';
import { latestPoint, minRtt, pointsBetween } from '../../../controller/modules/qoe/queries.js';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';
import { plansOf } from '../../support/query-plans.js';
import { indexNames } from '../../support/table-indexes.js';

const CLIENT = '01a1fdce-a0ed-7369-9e0b-346345789991';
const NAS = '01a1fdce-a0ed-7369-9e0b-000000000001';
const FROM = '2026-11-22T00:00:00.000Z';
const TO = '2026-11-22T23:59:59.999Z';

forEachDatabase('qoe points: one key', (database) => {
  let handle: TestDbHandle;
  before(async () => {
    handle = await database.open();
    await migrateDatabase(handle);
  });
  after(() => handle.close());

  const indexes = () => indexNames(handle, 'qoe_points');

  const reads: { name: string; run: (db: Db) => Promise<unknown> }[] = [
    { name: 'the latest point', run: (db) => latestPoint(db, CLIENT, NAS) },
    { name: 'the lowest RTT of a period', run: (db) => minRtt(db, CLIENT, NAS, FROM, TO) },
    { name: 'the points of a period', run: (db) => pointsBetween(db, CLIENT, NAS, FROM, TO) },
  ];
  for (const read of reads)
    it(`${read.name}: searched by NAS through the key, never scanned`, async () => {
      const plans = await plansOf(handle, read.run);
      const text = plans.join('\n');
      if (handle.caps.planShowsSearchKeys) {
        const lines = plans.filter((p) => /\bqoe_points\b/.test(p));
        expect(lines, text).to.not.be.empty;
        for (const p of lines) expect(p, text).to.match(/^SEARCH qoe_points USING INDEX \S+ \(nas_id=\?/);
      } else {
        expect(text).to.include('qoe_points_nas_observed');
        expect(text).to.not.match(/Seq Scan/);
      }
    });

  it('migration 0073 drops the second index, puts it back going down, and drops it again', async () => {
    expect(await indexes()).to.not.include('qoe_points_client_nas');
    await m0073.down(handle.db as never);
    expect(await indexes()).to.include('qoe_points_client_nas');
    await m0073.up(handle.db as never);
    expect(await indexes()).to.not.include('qoe_points_client_nas');
  });
});
