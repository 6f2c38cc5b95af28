// The pure QoE rules: what a counter interval adds, the usage flags at their thresholds, and
// congestion against the NAS's own RTT baseline.
import { expect } from 'chai';
import { isCongested, type CongestionInput } from '../../../controller/modules/qoe/congestion.js';
import { usageVerdict, type UsageInput } from '../../../controller/modules/qoe/usage-verdict.js';
import { counterDelta } from '../../../controller/modules/usage/counter-delta.js';

const GIB = 2 ** 30;
const S = 1000;

describe('qoe counter intervals', () => {
  const prev = { at: 1_000_000, rx: 1000, tx: 500 };
  const cases: [
    string,
    Parameters<typeof counterDelta>[0],
    { at: number; rx: number; tx: number },
    number | null,
  ][] = [
    ['first point adds nothing', null, { at: 1_000_000, rx: 5, tx: 5 }, null],
    ['14 s adds nothing', prev, { at: prev.at + 14 * S, rx: 1100, tx: 600 }, null],
    ['15 s counts', prev, { at: prev.at + 15 * S, rx: 1100, tx: 600 }, 200],
    ['15 min counts', prev, { at: prev.at + 900 * S, rx: 1100, tx: 600 }, 200],
    ['15 min and 1 ms adds nothing', prev, { at: prev.at + 900 * S + 1, rx: 1100, tx: 600 }, null],
    ['16 min adds nothing', prev, { at: prev.at + 960 * S, rx: 1100, tx: 600 }, null],
    ['rx went back (restart)', prev, { at: prev.at + 60 * S, rx: 10, tx: 600 }, null],
    ['tx went back alone', prev, { at: prev.at + 60 * S, rx: 1100, tx: 499 }, null],
    ['unchanged counters add zero', prev, { at: prev.at + 60 * S, rx: 1000, tx: 500 }, 0],
    ['an older point adds nothing', prev, { at: prev.at - 60 * S, rx: 1100, tx: 600 }, null],
  ];
  for (const [name, before, next, want] of cases)
    it(name, () => expect(counterDelta(before, next)).to.equal(want));
});

describe('qoe usage verdict', () => {
  const u = (o: Partial<UsageInput>): UsageInput => ({
    dayBytes: 0,
    twoHoursBytes: 0,
    hoursIntoDay: 12,
    ...o,
  });
  // Earlier volume over 10 hours such that 5 GiB in two hours is exactly a 35 percent rise.
  const x = 5 * GIB;
  const atRise = Math.floor((5 * x) / 1.35);

  it('reads GB as 10^9 bytes and says null, never 0, with no earlier volume', () => {
    expect(usageVerdict(u({ dayBytes: 3.5e9, twoHoursBytes: 1e9 }))).to.include({
      daily_gb: 3.5,
      last_two_hours_gb: 1,
      acceleration_pct: 100,
    });
    expect(usageVerdict(u({ dayBytes: 3e9, twoHoursBytes: 3e9 })).acceleration_pct).to.equal(null);
    expect(usageVerdict(u({ dayBytes: 3e9, twoHoursBytes: 1e9, hoursIntoDay: 2 })).acceleration_pct).to.equal(
      null,
    );
    expect(usageVerdict(u({ dayBytes: null, twoHoursBytes: null }))).to.deep.equal({
      daily_gb: null,
      last_two_hours_gb: null,
      acceleration_pct: null,
      daily_warning: false,
      accelerating: false,
    });
  });

  const flags: [string, UsageInput, { daily_warning: boolean; accelerating: boolean }][] = [
    ['just under 100 GiB', u({ dayBytes: 100 * GIB - 1 }), { daily_warning: false, accelerating: false }],
    ['at 100 GiB', u({ dayBytes: 100 * GIB }), { daily_warning: true, accelerating: false }],
    [
      '5 GiB less a byte, steep',
      u({ dayBytes: 1e9 + x - 1, twoHoursBytes: x - 1 }),
      {
        daily_warning: false,
        accelerating: false,
      },
    ],
    [
      '5 GiB, steep',
      u({ dayBytes: 1e9 + x, twoHoursBytes: x }),
      { daily_warning: false, accelerating: true },
    ],
    [
      '5 GiB at 35 percent',
      u({ dayBytes: atRise + x, twoHoursBytes: x }),
      {
        daily_warning: false,
        accelerating: true,
      },
    ],
    [
      '5 GiB just under 35 percent',
      u({ dayBytes: atRise + 1 + x, twoHoursBytes: x }),
      {
        daily_warning: false,
        accelerating: false,
      },
    ],
    [
      '5 GiB with no earlier volume',
      u({ dayBytes: x, twoHoursBytes: x }),
      { daily_warning: false, accelerating: false },
    ],
  ];
  for (const [name, input, want] of flags) it(name, () => expect(usageVerdict(input)).to.include(want));
});

describe('qoe congestion against the NAS baseline', () => {
  const c = (o: Partial<CongestionInput>): CongestionInput => ({
    rtt_ms: 600,
    packet_loss_pct: 2,
    baseline_rtt_ms: 600,
    age_ms: 60_000,
    ...o,
  });
  const cases: [string, CongestionInput, boolean][] = [
    ['a geostationary link at rest (600 ms, 2 % loss)', c({}), false],
    ['geostationary at 1.5x its baseline', c({ rtt_ms: 900 }), true],
    ['geostationary just under 1.5x', c({ rtt_ms: 899 }), false],
    ['fibre at 1.5x but only 15 ms more', c({ rtt_ms: 45, baseline_rtt_ms: 30, packet_loss_pct: 0 }), false],
    ['fibre 100 ms over a 30 ms baseline', c({ rtt_ms: 130, baseline_rtt_ms: 30, packet_loss_pct: 0 }), true],
    ['5 % loss', c({ packet_loss_pct: 5 }), true],
    ['a stale point says nothing', c({ rtt_ms: 2000, age_ms: 16 * 60_000 }), false],
    ['no RTT measured', c({ rtt_ms: null, packet_loss_pct: null }), false],
  ];
  for (const [name, input, want] of cases) it(name, () => expect(isCongested(input)).to.equal(want));
});
