import { expect } from 'chai';
import { quietHoursEnd } from '../../../controller/modules/notifications/quiet-hours.js';

describe('quiet hours', () => {
  const cases: [string, string, string, string | null][] = [
    ['08:00', '07:00', '09:00', '2026-11-21T09:00:00.000Z'],
    ['06:59', '07:00', '09:00', null],
    ['09:00', '07:00', '09:00', null],
    ['23:30', '22:00', '07:00', '2026-11-22T07:00:00.000Z'],
    ['03:00', '22:00', '07:00', '2026-11-21T07:00:00.000Z'],
    ['12:00', '22:00', '07:00', null],
    ['12:00', '12:00', '12:00', null],
  ];
  for (const [time, start, end, expected] of cases) {
    it(`at ${time} with ${start}-${end} the push waits until ${expected ?? 'nothing'}`, () => {
      const now = new Date(`2026-11-21T${time}:00.000Z`);
      expect(quietHoursEnd(now, { start, end })?.toISOString() ?? null).to.equal(expected);
    });
  }

  it('refuses a malformed time', () => {
    expect(() => quietHoursEnd(new Date(), { start: '7h', end: '09:00' })).to.throw(/bad quiet-hours time/);
  });
});
