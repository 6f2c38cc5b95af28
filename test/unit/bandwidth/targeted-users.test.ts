// Targeted users: the larger source per (user, address), never the sum; the largest first; 16 addresses.
import { expect } from 'chai';
import {
  userVolumes,
  usersToThrottle,
  type PairVolume,
} from '../../../controller/modules/bandwidth/targeted-users.js';
import { counterDelta } from '../../../controller/modules/usage/counter-delta.js';

const GB = 1e9;

describe('bandwidth targeted users', () => {
  it('keeps the larger of RADIUS and router per (user, address), then sums the addresses', () => {
    const pairs: PairVolume[] = [
      { username: 'ali', address: '10.5.50.2', bytes: 3 * GB, source: 'RADIUS' },
      { username: 'ali', address: '10.5.50.2', bytes: 2 * GB, source: 'ROUTEUR' },
      { username: 'ali', address: '10.5.50.3', bytes: 1 * GB, source: 'ROUTEUR' },
      { username: 'bob', address: '10.5.50.9', bytes: 0.5 * GB, source: 'RADIUS' },
    ];
    const v = userVolumes(pairs);
    expect(v.find((u) => u.username === 'ali')).to.deep.equal({
      username: 'ali',
      bytes: 4 * GB,
      addresses: ['10.5.50.2', '10.5.50.3'],
      sources: ['RADIUS', 'ROUTEUR'],
    });
  });

  it('gives 16 addresses at most, the largest, while counting all 17', () => {
    const pairs: PairVolume[] = Array.from({ length: 17 }, (_, i) => ({
      username: 'big',
      address: `10.5.50.${i + 10}`,
      bytes: (i + 1) * 1e8,
      source: 'RADIUS' as const,
    }));
    const [u] = userVolumes(pairs);
    expect(u!.addresses).to.have.length(16);
    expect(u!.addresses).to.not.include('10.5.50.10');
    expect(u!.bytes).to.equal((17 * 18 * 1e8) / 2);
  });

  it('throttles users strictly over the quota, largest first, up to the maximum', () => {
    const v = [
      { username: 'a', bytes: 5 * GB, addresses: [], sources: [] },
      { username: 'b', bytes: 9 * GB, addresses: [], sources: [] },
      { username: 'c', bytes: 2 * GB, addresses: [], sources: [] },
      { username: 'd', bytes: 7 * GB, addresses: [], sources: [] },
    ];
    expect(usersToThrottle(v, 2, 10).map((u) => u.username)).to.deep.equal(['b', 'd', 'a']);
    expect(usersToThrottle(v, 2, 2).map((u) => u.username)).to.deep.equal(['b', 'd']);
    expect(usersToThrottle(v, 2, 0)).to.deep.equal([]);
  });

  it('counts WAN bytes only over a usable interval of rising counters', () => {
    const p = { at: 0, rx: 100, tx: 50 };
    const cases: [string, Parameters<typeof counterDelta>[0], number | null][] = [
      ['first point', null, null],
      ['5 minutes later', p, 300],
      ['14 s later', { ...p, at: 286_000 }, null],
      ['16 minutes gap', { ...p, at: 300_000 - 16 * 60_000 }, null],
      ['counter reset', { ...p, rx: 10_000 }, null],
    ];
    for (const [name, prev, want] of cases)
      expect(counterDelta(prev, { at: 300_000, rx: 300, tx: 150 }), name).to.equal(want);
  });
});
