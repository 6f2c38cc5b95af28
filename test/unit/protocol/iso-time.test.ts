// isoTime writes what Date#toISOString writes, from the UTC fields (see protocol/iso-time.ts).
import { expect } from 'chai';
import { isoTime } from '../../../protocol/index.js';

describe('isoTime', () => {
  it('gives the text of toISOString', () => {
    const times = [
      0,
      1,
      999,
      Date.UTC(2026, 10, 27, 12, 28, 54, 7),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 0, 0, 0, 50),
      Date.UTC(1999, 0, 1, 9, 5, 3, 100),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(100, 0, 1),
      -62_135_596_800_000, // 0001-01-01
    ];
    for (const t of times) expect(isoTime(new Date(t)), String(t)).to.equal(new Date(t).toISOString());
    expect(isoTime()).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('defers to toISOString outside years 0 to 9999, and refuses an invalid date as it does', () => {
    const far = new Date(Date.UTC(10_000, 0, 1));
    expect(isoTime(far)).to.equal('+010000-01-01T00:00:00.000Z');
    const before = new Date(Date.UTC(-1, 0, 1));
    expect(isoTime(before)).to.equal(before.toISOString());
    expect(() => isoTime(new Date(Number.NaN))).to.throw(RangeError);
  });
});
