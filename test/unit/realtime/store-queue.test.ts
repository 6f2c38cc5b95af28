// The queue that stores a channel's publications: those asked for together go in one batch, those
// asked for during a write go in the next, in order; a failed write fails its batch only.
import { expect } from 'chai';
import { StoreQueue } from '../../../controller/modules/realtime/store-queue.js';

/** A store whose writes finish when the test says so; it records every batch. */
function heldStore() {
  const batches: string[][] = [];
  const pending: { resolve: () => void; reject: (err: Error) => void }[] = [];
  const store = (items: string[]) => {
    batches.push(items);
    return new Promise<string[]>((resolve, reject) => {
      pending.push({ resolve: () => resolve(items.map((i) => `stored ${i}`)), reject });
    });
  };
  /** Waits until `n` writes have started. */
  const started = async (n: number) => {
    while (batches.length < n) await new Promise((r) => setImmediate(r));
  };
  return { batches, pending, store, started };
}

describe('realtime store queue', () => {
  it('stores what is asked for together as one batch, and what comes during a write as the next', async () => {
    const s = heldStore();
    let idle = 0;
    const queue = new StoreQueue(s.store, 100, () => idle++);
    const first = ['a', 'b', 'c'].map((i) => queue.add(i));
    await s.started(1);
    expect(s.batches).to.deep.equal([['a', 'b', 'c']]);
    // Asked for while the first write runs: they wait for it, then go together.
    const second = ['d', 'e'].map((i) => queue.add(i));
    await new Promise((r) => setImmediate(r));
    expect(s.batches).to.have.length(1);
    s.pending[0]!.resolve();
    expect(await Promise.all(first)).to.deep.equal(['stored a', 'stored b', 'stored c']);
    await s.started(2);
    expect(s.batches[1]).to.deep.equal(['d', 'e']);
    expect(idle).to.equal(0);
    s.pending[1]!.resolve();
    expect(await Promise.all(second)).to.deep.equal(['stored d', 'stored e']);
    expect(idle).to.equal(1);
    // A lone item later: a batch of its own.
    const lone = queue.add('f');
    await s.started(3);
    s.pending[2]!.resolve();
    expect(await lone).to.equal('stored f');
    expect(s.batches[2]).to.deep.equal(['f']);
    expect(idle).to.equal(2);
  });

  it('cuts batches at the maximum, keeping the order', async () => {
    const s = heldStore();
    const queue = new StoreQueue(s.store, 2);
    const all = ['a', 'b', 'c', 'd', 'e'].map((i) => queue.add(i));
    for (let n = 1; n <= 3; n++) {
      await s.started(n);
      s.pending[n - 1]!.resolve();
    }
    expect(await Promise.all(all)).to.deep.equal(['a', 'b', 'c', 'd', 'e'].map((i) => `stored ${i}`));
    expect(s.batches).to.deep.equal([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('fails the items of a failed write only; the next batch is still written', async () => {
    const s = heldStore();
    const queue = new StoreQueue(s.store, 100);
    const failed = ['a', 'b'].map((i) => queue.add(i).catch((err: Error) => err.message));
    await s.started(1);
    const later = queue.add('c');
    s.pending[0]!.reject(new Error('refused'));
    expect(await Promise.all(failed)).to.deep.equal(['refused', 'refused']);
    await s.started(2);
    s.pending[1]!.resolve();
    expect(await later).to.equal('stored c');
  });
});
