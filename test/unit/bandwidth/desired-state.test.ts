// The desired state of a router: scheduled days, adaptive quotas and peaks, the imposed cap.
import { expect } from 'chai';
import {
  acceleration,
  desiredState,
  GB,
  type DesiredInput,
} from '../../../controller/modules/bandwidth/desired-state.js';
import { routerDay } from '../../../controller/modules/usage/index.js';

const GIB = 2 ** 30;
const programme: DesiredInput['programme'] = {
  enabled: true,
  mode: 'BOTH',
  limit_mbps: 10,
  scheduled_dates: ['2026-11-28'],
  schedule_weekdays: [0],
  daily_quota_gb: 50,
  monthly_quota_gb: 1000,
};
const input = (o: Partial<DesiredInput> = {}): DesiredInput => ({
  programme,
  day: '2026-11-27',
  weekday: 5,
  usage: { day: 1 * GB, month: 10 * GB, twoHours: 0.1 * GB, hoursIntoDay: 12 },
  peakDay: null,
  ...o,
});

describe('bandwidth desired state', () => {
  const cases: [string, DesiredInput, { on: boolean; motif: string | null; cap?: number | null }][] = [
    ['an ordinary day', input(), { on: false, motif: null }],
    [
      'a scheduled date',
      input({ day: '2026-11-28', weekday: 6 }),
      { on: true, motif: 'JOUR_PROGRAMME', cap: 10 },
    ],
    ['a scheduled weekday', input({ day: '2026-11-29', weekday: 0 }), { on: true, motif: 'JOUR_PROGRAMME' }],
    [
      'disabled on a scheduled date',
      input({ programme: { ...programme, enabled: false }, day: '2026-11-28' }),
      { on: false, motif: null },
    ],
    [
      'daily quota reached',
      input({ usage: { day: 50 * GB, month: 60 * GB, twoHours: 0, hoursIntoDay: 12 } }),
      { on: true, motif: 'QUOTA_JOURNALIER' },
    ],
    [
      'daily quota just under',
      input({ usage: { day: 50 * GB - 1, month: 60 * GB, twoHours: 0, hoursIntoDay: 12 } }),
      { on: false, motif: null },
    ],
    [
      'monthly quota reached',
      input({ usage: { day: 1 * GB, month: 1000 * GB, twoHours: 0, hoursIntoDay: 12 } }),
      { on: true, motif: 'QUOTA_MENSUEL' },
    ],
    [
      'quota on a SCHEDULED-only programme does nothing',
      input({
        programme: { ...programme, mode: 'SCHEDULED' },
        usage: { day: 99 * GB, month: 0, twoHours: 0, hoursIntoDay: 12 },
      }),
      { on: false, motif: null },
    ],
    [
      'ADAPTIVE ignores the schedule',
      input({ programme: { ...programme, mode: 'ADAPTIVE' }, day: '2026-11-28' }),
      { on: false, motif: null },
    ],
    [
      'a peak: 6 GiB in two hours after 4 GiB in ten',
      input({ usage: { day: 10 * GIB, month: 20 * GIB, twoHours: 6 * GIB, hoursIntoDay: 12 } }),
      { on: true, motif: 'PIC_DE_CONSOMMATION' },
    ],
    [
      'fast but under 5 GiB is no peak',
      input({ usage: { day: 5 * GIB, month: 20 * GIB, twoHours: 4.9 * GIB, hoursIntoDay: 12 } }),
      { on: false, motif: null },
    ],
    [
      '5 GiB at the earlier pace is no peak',
      input({ usage: { day: 30 * GIB, month: 40 * GIB, twoHours: 5 * GIB, hoursIntoDay: 12 } }),
      { on: false, motif: null },
    ],
    [
      'a peak found earlier today holds',
      input({ peakDay: '2026-11-27' }),
      { on: true, motif: 'PIC_DE_CONSOMMATION' },
    ],
    ['a peak of yesterday does not', input({ peakDay: '2026-11-26' }), { on: false, motif: null }],
    [
      'unmeasured usage never triggers',
      input({ usage: { day: null, month: null, twoHours: null, hoursIntoDay: 12 } }),
      { on: false, motif: null },
    ],
    [
      "an imposed cap below the manager's",
      input({ imposedCapMbps: 4 }),
      { on: true, motif: 'PLAFOND_SATELLITE', cap: 4 },
    ],
    [
      'an imposed cap never raises it',
      input({ imposedCapMbps: 40, day: '2026-11-28' }),
      { on: true, motif: 'JOUR_PROGRAMME', cap: 10 },
    ],
  ];
  for (const [name, given, want] of cases) {
    it(name, () => {
      const d = desiredState(given);
      expect({ on: d.on, motif: d.motif }).to.deep.equal({ on: want.on, motif: want.motif });
      if (want.cap !== undefined) expect(d.capMbps).to.equal(want.cap);
    });
  }

  it('reports the acceleration of a new peak', () => {
    const d = desiredState(
      input({ usage: { day: 10 * GIB, month: 20 * GIB, twoHours: 6 * GIB, hoursIntoDay: 12 } }),
    );
    // 3 GiB/h against 0.4 GiB/h earlier.
    expect(d.peak).to.deep.equal({ acceleration_pct: 650 });
    expect(acceleration({ day: 1, month: 1, twoHours: 1, hoursIntoDay: 1 })).to.equal(null);
  });

  it('reads days in the router time zone, UTC when unknown', () => {
    const at = new Date('2026-11-27T23:30:00Z');
    expect(routerDay(at, 'Africa/Dakar').day).to.equal('2026-11-27');
    expect(routerDay(at, 'Africa/Lagos')).to.include({ day: '2026-11-28', weekday: 6 });
    expect(routerDay(at, 'Not/AZone').day).to.equal('2026-11-27');
    expect(routerDay(at, null).day).to.equal('2026-11-27');
  });
});
