import { expect } from 'chai';
import { nextRun, type Cadence } from '../../../controller/jobs/cadence.js';

describe('job cadence', () => {
  const cases: [Cadence, string, string][] = [
    [{ everyMs: 180_000 }, '2026-11-21T10:00:00.000Z', '2026-11-21T10:03:00.000Z'],
    [{ dailyAtUtc: '20:00' }, '2026-11-21T10:00:00.000Z', '2026-11-21T20:00:00.000Z'],
    [{ dailyAtUtc: '20:00' }, '2026-11-21T20:00:00.000Z', '2026-11-22T20:00:00.000Z'],
    [{ dailyAtUtc: '20:00' }, '2026-11-21T20:00:00.001Z', '2026-11-22T20:00:00.000Z'],
    [{ dailyAtUtc: '00:00' }, '2026-12-31T23:59:00.000Z', '2027-01-01T00:00:00.000Z'],
    [{ dailyAtUtc: '03:30' }, '2026-11-21T03:29:59.000Z', '2026-11-21T03:30:00.000Z'],
  ];
  for (const [cadence, now, expected] of cases) {
    it(`${JSON.stringify(cadence)} after ${now} is ${expected}`, () => {
      expect(nextRun(cadence, new Date(now)).toISOString()).to.equal(expected);
    });
  }

  for (const bad of ['24:00', '8:00', '20h00', '']) {
    it(`refuses daily time ${JSON.stringify(bad)}`, () => {
      expect(() => nextRun({ dailyAtUtc: bad }, new Date())).to.throw(/bad daily time/);
    });
  }
});
