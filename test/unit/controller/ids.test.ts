import { expect } from 'chai';
import { newId } from '../../../controller/core/ids.js';

describe('ids (UUID v7)', () => {
  it('are valid version-7 UUIDs', () => {
    for (let i = 0; i < 100; i++) {
      expect(newId()).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('increase strictly, also within one millisecond and across a burst', () => {
    const ids = Array.from({ length: 10_000 }, () => newId());
    for (let i = 1; i < ids.length; i++)
      expect(ids[i]! > ids[i - 1]!, `${ids[i - 1]} < ${ids[i]}`).to.equal(true);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('carry the creation time in their first 48 bits', () => {
    // Ahead of every id made so far (ids never go back in time), whatever day the suite runs.
    const at = Date.now() + 365 * 86_400_000;
    const id = newId(at);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).to.equal(at);
  });
});
