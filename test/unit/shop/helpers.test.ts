// The shop's small pure helpers: JSON Merge Patch, RouterOS durations, accounting periods, the
// shop's router, the merchant key cipher.
import { expect } from 'chai';
import { mergePatch, type Json } from '../../../controller/modules/shop/merge-patch.js';
import { periodStarts } from '../../../controller/modules/shop/periods.js';
import { routerOsDuration } from '../../../controller/modules/shop/router-profiles.js';
import { pickShopRouter } from '../../../controller/modules/shop/shop-router.js';
import type { AllocationView } from '../../../controller/modules/allocations/index.js';

describe('shop helpers', () => {
  // RFC 7396 appendix A examples.
  const PATCHES: [Json, Json, Json][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, result] of PATCHES) {
    it(`merge patch ${JSON.stringify(target)} + ${JSON.stringify(patch)}`, () =>
      expect(mergePatch(target, patch)).to.deep.equal(result));
  }

  it('writes durations as RouterOS does', () => {
    const rows: [number, string][] = [
      [0, '0s'],
      [59, '59s'],
      [3600, '1h'],
      [90_061, '1d1h1m1s'],
      [604_800 * 2 + 30, '2w30s'],
    ];
    for (const [s, text] of rows) expect(routerOsDuration(s), String(s)).to.equal(text);
  });

  it('starts the day, the ISO week and the month in UTC', () => {
    const rows: [string, string, string, string][] = [
      ['2026-11-21T08:00:00.000Z', '2026-11-21', '2026-11-16', '2026-11-01'],
      ['2026-11-23T00:00:00.000Z', '2026-11-23', '2026-11-23', '2026-11-01'],
      ['2026-11-29T23:59:59.999Z', '2026-11-29', '2026-11-23', '2026-11-01'],
      ['2027-01-01T12:00:00.000Z', '2027-01-01', '2026-12-28', '2027-01-01'],
    ];
    for (const [now, day, week, month] of rows)
      expect(periodStarts(new Date(now)), now).to.deep.equal({ day, week, month });
  });

  it("picks the PRIMARY's router, else an enrolled one, connected first, oldest first", () => {
    const a = (id: string, created: string, link: 'CONNECTED' | 'DISCONNECTED', status = 'ENROLLED') =>
      ({
        id,
        created_at: created,
        link_state: link,
        status,
        last_seen_at: null,
        router: { serial: id.toUpperCase() },
      }) as unknown as AllocationView;
    const all = [
      a('old', '2026-01-01', 'DISCONNECTED'),
      a('mid', '2026-02-01', 'CONNECTED'),
      a('new', '2026-03-01', 'CONNECTED'),
      a('wait', '2025-01-01', 'CONNECTED', 'AWAITING_ENROLMENT'),
    ];
    expect(pickShopRouter(all, 'old')?.allocation_id).to.equal('old');
    expect(pickShopRouter(all, null)?.allocation_id).to.equal('mid');
    expect(pickShopRouter(all, 'wait')?.allocation_id).to.equal('mid');
    expect(pickShopRouter([all[0]!], null)).to.include({
      allocation_id: 'old',
      tunnel_status: 'DISCONNECTED',
      serial: 'OLD',
    });
    expect(pickShopRouter([all[3]!], null)).to.equal(null);
  });
});
