// The last two hours from hour buckets: the oldest bucket counts for its part of the window.
import { expect } from 'chai';
import { lastTwoHours, twoHoursFrom } from '../../../controller/modules/usage/last-two-hours.js';

const h = (hour: string, bytes: number) => ({ hour: `2026-11-22T${hour}:00:00.000Z`, bytes });
// A steady load: 3,600 bytes every hour, so any two hours hold 7,200.
const steady = [h('10', 3600), h('11', 3600), h('12', 3600)];

describe('usage: the last two hours from hour buckets', () => {
  const cases: [name: string, buckets: ReturnType<typeof h>[], now: string, expected: number][] = [
    [
      'a steady load at 12:59 is two hours of it, not three',
      steady.map((b, i) => (i === 2 ? { ...b, bytes: 3540 } : b)),
      '12:59',
      7200,
    ],
    ['at 12:00 the window is 10:00-12:00 exactly', [h('10', 3600), h('11', 3600)], '12:00', 7200],
    ['at 12:30 half of 10:00 counts', [h('10', 3600), h('11', 3600), h('12', 1800)], '12:30', 7200],
    ['a burst early in the oldest hour is spread over it', [h('10', 6000)], '12:45', 1500],
    ['a bucket older than the window counts nothing', [h('09', 5000), h('11', 100)], '12:00', 100],
    ['nothing measured: 0', [], '12:10', 0],
  ];
  for (const [name, buckets, now, expected] of cases) {
    it(name, () => {
      expect(lastTwoHours(buckets, new Date(`2026-11-22T${now}:00.000Z`))).to.equal(expected);
    });
  }

  it('reads from the start of the hour the window begins in', () => {
    expect(twoHoursFrom(new Date('2026-11-22T12:59:59.000Z'))).to.equal('2026-11-22T10:00:00.000Z');
    expect(twoHoursFrom(new Date('2026-11-22T12:00:00.000Z'))).to.equal('2026-11-22T10:00:00.000Z');
    expect(twoHoursFrom(new Date('2026-11-22T01:30:00.000Z'))).to.equal('2026-11-21T23:00:00.000Z');
  });
});
