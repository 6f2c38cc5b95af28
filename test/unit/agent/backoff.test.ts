import { expect } from 'chai';
import { Backoff, backoffBounds, backoffDelay, DEFAULT_BACKOFF } from '../../../agent/link/backoff.js';

describe('reconnect backoff', () => {
  it('doubles the ceiling from 1 s and caps it at 60 s', () => {
    const table = [0, 1, 2, 3, 4, 5, 6, 7, 10, 50, 1000].map((attempt) => backoffBounds(attempt).max);
    expect(table).to.deep.equal([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000, 60_000,
    ]);
    expect(DEFAULT_BACKOFF).to.deep.equal({ baseMs: 1000, capMs: 60_000 });
  });

  it('uses full jitter: anywhere from 0 to the ceiling', () => {
    expect(backoffBounds(3).min).to.equal(0);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0)).to.equal(0);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.5)).to.equal(4000);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.999999)).to.equal(7999);
    expect(backoffDelay(20, DEFAULT_BACKOFF, () => 0.999999)).to.be.below(60_000);
  });

  it('stays within bounds for any random draw', () => {
    for (let attempt = 0; attempt < 40; attempt++) {
      const { min, max } = backoffBounds(attempt);
      for (let i = 0; i < 50; i++) {
        const delay = backoffDelay(attempt);
        expect(delay).to.be.at.least(min).and.at.most(max);
      }
    }
  });

  it('clamps a random source that leaves [0, 1)', () => {
    expect(backoffDelay(0, DEFAULT_BACKOFF, () => -3)).to.equal(0);
    expect(backoffDelay(0, DEFAULT_BACKOFF, () => 7)).to.equal(1000);
  });

  it('refuses a negative or fractional attempt', () => {
    expect(() => backoffBounds(-1)).to.throw(RangeError);
    expect(() => backoffBounds(1.5)).to.throw(RangeError);
  });

  it('climbs one step per wait and starts over after reset()', () => {
    const backoff = new Backoff({ baseMs: 100, capMs: 1000 }, () => 0.5);
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()]).to.deep.equal([
      50, 100, 200, 400, 500,
    ]);
    expect(backoff.attempt).to.equal(5);
    backoff.reset();
    expect(backoff.attempt).to.equal(0);
    expect(backoff.next()).to.equal(50);
  });
});
