import { expect } from 'chai';
import {
  busiestWindow,
  DEFAULT_LOOP_RULE,
  detectLoops,
  minAttempts,
  type Attempt,
} from '../../../controller/modules/affluence/loops.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** `spec`: one letter per attempt, A accepted, R refused, `step` seconds apart. */
function device(mac: string | null, spec: string, step: number, start = 0, username = 'code1'): Attempt[] {
  return [...spec].map((c, i) => ({
    device: mac ? `m:${mac}` : `u:${username}`,
    mac,
    username,
    accepted: c === 'A',
    at: at(start + i * step),
  }));
}

describe('affluence loop rule', () => {
  const MAC = 'AA:BB:CC:DD:EE:01';
  const cases: { name: string; attempts: Attempt[]; motif: string | null }[] = [
    { name: 'no attempt', attempts: [], motif: null },
    { name: '9 attempts in 10 minutes', attempts: device(MAC, 'AAAAAAAAA', 60), motif: null },
    {
      name: '10 attempts within 10 minutes (9 min span)',
      attempts: device(MAC, 'AAAAAAAAAA', 60),
      motif: 'RAFALE',
    },
    // 10 attempts spanning exactly 10 minutes: the window is half-open, so never 10 in one window.
    { name: '10 attempts over exactly 10 minutes', attempts: device(MAC, 'AAAAAAAAAA', 66.67), motif: null },
    { name: '10 attempts over two hours', attempts: device(MAC, 'AAAAAAAAAA', 720), motif: null },
    { name: '4 refusals in a row', attempts: device(MAC, 'RRRRA', 600), motif: null },
    {
      name: '5 refusals in a row, hours apart',
      attempts: device(MAC, 'RRRRR', 3600),
      motif: 'REFUS_EN_SERIE',
    },
    { name: '5 refusals broken by an accept', attempts: device(MAC, 'RRARRR', 3600), motif: null },
    { name: 'an accept after 5 refusals', attempts: device(MAC, 'ARRRRRA', 3600), motif: 'REFUS_EN_SERIE' },
    { name: 'burst of refusals is a RAFALE first', attempts: device(MAC, 'RRRRRRRRRR', 10), motif: 'RAFALE' },
    { name: 'no MAC: grouped by username', attempts: device(null, 'RRRRR', 60), motif: 'REFUS_EN_SERIE' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const loops = detectLoops(c.attempts);
      expect(loops.map((l) => l.motif)).to.deep.equal(c.motif ? [c.motif] : []);
    });
  }

  it('reports the device with its figures for the whole day', () => {
    const attempts = [...device(MAC, 'AR', 60, 0), ...device(MAC, 'RRRRRA', 30, 3600, 'code2')];
    const [loop] = detectLoops(attempts.reverse()); // order of input does not matter
    expect(loop).to.deep.equal({
      mac: MAC,
      username: 'code2',
      tentatives: 8,
      acceptes: 2,
      refus: 6,
      premiere: at(0),
      derniere: at(3600 + 5 * 30),
      motif: 'REFUS_EN_SERIE',
      max_par_fenetre: 6,
      refus_consecutifs_max: 6,
    });
  });

  it('keeps devices apart, most attempts first, at most the limit', () => {
    const attempts = [
      ...device('AA:00:00:00:00:01', 'RRRRR', 60),
      ...device('AA:00:00:00:00:02', 'AAAAAAAAAAAA', 30),
      ...device('AA:00:00:00:00:03', 'RRRR', 60), // not a loop
      ...device('AA:00:00:00:00:04', 'RRRRRR', 60, 100),
    ];
    expect(detectLoops(attempts).map((l) => [l.mac, l.tentatives])).to.deep.equal([
      ['AA:00:00:00:00:02', 12],
      ['AA:00:00:00:00:04', 6],
      ['AA:00:00:00:00:01', 5],
    ]);
    expect(detectLoops(attempts, DEFAULT_LOOP_RULE, 1)).to.have.length(1);
  });

  it('honours another rule, and its SQL pre-filter is the smaller threshold', () => {
    const rule = { windowMs: 60_000, windowAttempts: 3, rejectStreak: 8 };
    expect(detectLoops(device(MAC, 'AAA', 20), rule).map((l) => l.motif)).to.deep.equal(['RAFALE']);
    expect(detectLoops(device(MAC, 'AAA', 30), rule)).to.deep.equal([]);
    expect(minAttempts(rule)).to.equal(3);
    expect(minAttempts(DEFAULT_LOOP_RULE)).to.equal(5);
  });

  const windows: [number[], number, number][] = [
    [[], 10, 0],
    [[0], 10, 1],
    [[0, 9], 10, 2],
    [[0, 10], 10, 1],
    [[0, 1, 2, 15, 16, 17, 18], 10, 4],
    [[5, 5, 5], 1, 3],
  ];
  for (const [times, width, expected] of windows) {
    it(`busiest window of ${JSON.stringify(times)} over ${width} is ${expected}`, () => {
      expect(busiestWindow(times, width)).to.equal(expected);
    });
  }
});
