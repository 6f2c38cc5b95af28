import { expect } from 'chai';
import { monotonicMs } from '../../../protocol/index.js';

describe('monotonicMs', () => {
  it('never goes back, and counts in milliseconds like performance.now()', async () => {
    const readings = Array.from({ length: 1000 }, () => monotonicMs());
    for (let i = 1; i < readings.length; i++) expect(readings[i]).to.be.at.least(readings[i - 1]!);
    const [m0, p0] = [monotonicMs(), performance.now()];
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [m1, p1] = [monotonicMs(), performance.now()];
    // Both clocks read around the same wait: the same unit (a microsecond clock would be 1000x off).
    expect(m1 - m0).to.be.above(0);
    expect((m1 - m0) / (p1 - p0)).to.be.within(0.5, 2);
  });
});
