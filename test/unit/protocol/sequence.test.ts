import { expect } from 'chai';
import { SequenceCounter, SequenceGuard } from '../../../protocol/index.js';
import type { ProtocolErrorCode } from '../../../protocol/index.js';
import { expectProtocolError } from './fixtures.js';

describe('protocol sequence numbers', () => {
  // Each case feeds `accepted` in order, then `next` must be refused with `code`.
  const refused: Array<[string, number[], number, ProtocolErrorCode]> = [
    ['an equal seq (replay)', [1, 2, 3], 3, 'REPLAYED_SEQUENCE'],
    ['a lower seq (reordered)', [1, 5], 4, 'REPLAYED_SEQUENCE'],
    ['the first seq again', [1], 1, 'REPLAYED_SEQUENCE'],
    ['seq 0', [], 0, 'BAD_MESSAGE'],
    ['a negative seq', [], -1, 'BAD_MESSAGE'],
    ['a fractional seq', [1], 1.5, 'BAD_MESSAGE'],
    ['NaN', [], Number.NaN, 'BAD_MESSAGE'],
  ];
  for (const [name, accepted, next, code] of refused) {
    it(`SequenceGuard refuses ${name}`, () => {
      const guard = new SequenceGuard();
      for (const seq of accepted) guard.accept(seq);
      expectProtocolError(() => guard.accept(next), code);
    });
  }

  const allowed: Array<[string, number[]]> = [
    ['consecutive numbers', [1, 2, 3]],
    ['gaps', [1, 4, 100]],
    ['a first seq above 1', [7]],
  ];
  for (const [name, seqs] of allowed) {
    it(`SequenceGuard accepts ${name}`, () => {
      const guard = new SequenceGuard();
      for (const seq of seqs) guard.accept(seq);
      expect(guard.last).to.equal(seqs[seqs.length - 1]);
    });
  }

  it('SequenceGuard does not move its mark on a refused seq', () => {
    const guard = new SequenceGuard();
    guard.accept(5);
    expectProtocolError(() => guard.accept(2), 'REPLAYED_SEQUENCE');
    expect(guard.last).to.equal(5);
    guard.accept(6);
  });

  it('SequenceCounter counts 1, 2, 3 and each counter starts over', () => {
    const counter = new SequenceCounter();
    expect(counter.current).to.equal(0);
    expect([counter.next(), counter.next(), counter.next()]).to.deep.equal([1, 2, 3]);
    expect(counter.current).to.equal(3);
    expect(new SequenceCounter().next()).to.equal(1);
  });

  it('a counter feeds a guard without refusals', () => {
    const counter = new SequenceCounter();
    const guard = new SequenceGuard();
    for (let i = 0; i < 5; i += 1) guard.accept(counter.next());
    expect(guard.last).to.equal(5);
  });
});
