// The programme's checks, in the contract's order: each code, its bounds, and the defaults.
import { expect } from 'chai';
import { AppError } from '../../../controller/core/app-error.js';
import {
  checkProgramme,
  isCalendarDate,
  requireNasId,
} from '../../../controller/modules/bandwidth/programme-rules.js';

const base = { nas_id: 'n', limit_mbps: 10, mode: 'SCHEDULED', scheduled_dates: ['2026-11-28'] };

function codeOf(body: Record<string, unknown>): string {
  try {
    requireNasId(body);
    checkProgramme(body);
    return 'OK';
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
}

describe('bandwidth programme rules', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['valid scheduled', base, 'OK'],
    ['nas_id missing', { ...base, nas_id: undefined }, 'BW_NAS_REQUIRED'],
    ['nas_id empty', { ...base, nas_id: ' ' }, 'BW_NAS_REQUIRED'],
    ['nas_id not a text', { ...base, nas_id: 5 }, 'BW_NAS_REQUIRED'],
    ['limit missing', { ...base, limit_mbps: undefined }, 'BW_LIMIT_REQUIRED'],
    ['limit null', { ...base, limit_mbps: null }, 'BW_LIMIT_REQUIRED'],
    ['limit 0', { ...base, limit_mbps: 0 }, 'BW_LIMIT_INVALID'],
    ['limit negative', { ...base, limit_mbps: -1 }, 'BW_LIMIT_INVALID'],
    ['limit 10000 (bound)', { ...base, limit_mbps: 10_000 }, 'OK'],
    ['limit 10000.01', { ...base, limit_mbps: 10_000.01 }, 'BW_LIMIT_INVALID'],
    ['limit as text', { ...base, limit_mbps: '10' }, 'BW_LIMIT_INVALID'],
    ['limit tiny but positive', { ...base, limit_mbps: 0.001 }, 'OK'],
    ['mode unknown', { ...base, mode: 'ALWAYS' }, 'BW_MODE_INVALID'],
    ['mode lowercase', { ...base, mode: 'both' }, 'BW_MODE_INVALID'],
    ['scheduled without dates nor weekdays', { ...base, scheduled_dates: [] }, 'BW_SCHEDULE_EMPTY'],
    ['scheduled with weekdays only', { ...base, scheduled_dates: undefined, schedule_weekdays: [6] }, 'OK'],
    ['adaptive without schedule', { ...base, mode: 'ADAPTIVE', scheduled_dates: undefined }, 'OK'],
    ['date 2026-02-30', { ...base, scheduled_dates: ['2026-02-30'] }, 'BW_DATE_INVALID'],
    ['date with time', { ...base, scheduled_dates: ['2026-11-28T00:00'] }, 'BW_DATE_INVALID'],
    ['dates not a list', { ...base, scheduled_dates: '2026-11-28' }, 'BW_DATE_INVALID'],
    ['weekday 7', { ...base, schedule_weekdays: [7] }, 'BW_WEEKDAY_INVALID'],
    ['weekday -1', { ...base, schedule_weekdays: [-1] }, 'BW_WEEKDAY_INVALID'],
    ['weekday 1.5', { ...base, schedule_weekdays: [1.5] }, 'BW_WEEKDAY_INVALID'],
    ['weekdays 0 and 6 (bounds)', { ...base, schedule_weekdays: [0, 6] }, 'OK'],
    ['share 0', { ...base, essential_share: 0 }, 'BW_SHARE_INVALID'],
    ['share 1', { ...base, essential_share: 1 }, 'BW_SHARE_INVALID'],
    ['share 0.99', { ...base, essential_share: 0.99 }, 'OK'],
    ['classes all unknown', { ...base, essential_classes: ['youtube'] }, 'BW_CLASSES_INVALID'],
    ['classes empty', { ...base, essential_classes: [] }, 'BW_CLASSES_INVALID'],
    ['classes one known', { ...base, essential_classes: ['youtube', 'dns'] }, 'OK'],
    ['user quota without cap', { ...base, user_daily_quota_gb: 2 }, 'BW_USER_PAIR_REQUIRED'],
    ['user cap without quota', { ...base, user_limit_mbps: 1 }, 'BW_USER_PAIR_REQUIRED'],
    ['user pair', { ...base, user_daily_quota_gb: 2, user_limit_mbps: 1 }, 'OK'],
    ['max users 101', { ...base, max_throttled_users: 101 }, 'BW_MAX_USERS_INVALID'],
    ['max users -1', { ...base, max_throttled_users: -1 }, 'BW_MAX_USERS_INVALID'],
    ['max users 0 and 100 (bounds)', { ...base, max_throttled_users: 100 }, 'OK'],
    ['daily quota 0', { ...base, daily_quota_gb: 0 }, 'VALIDATION_ERROR'],
    ['monthly quota negative', { ...base, monthly_quota_gb: -5 }, 'VALIDATION_ERROR'],
    ['user quota 0', { ...base, user_daily_quota_gb: 0, user_limit_mbps: 1 }, 'VALIDATION_ERROR'],
    ['enabled not boolean', { ...base, enabled: 'yes' }, 'VALIDATION_ERROR'],
    // The first failure in the table's order answers.
    ['limit and mode both bad: limit first', { ...base, limit_mbps: 0, mode: 'X' }, 'BW_LIMIT_INVALID'],
    [
      'schedule empty before bad share',
      { ...base, scheduled_dates: [], essential_share: 2 },
      'BW_SCHEDULE_EMPTY',
    ],
    [
      'bad date before bad weekday',
      { ...base, scheduled_dates: ['x'], schedule_weekdays: [9] },
      'BW_DATE_INVALID',
    ],
    ['bad classes before pair', { ...base, essential_classes: [], user_limit_mbps: 1 }, 'BW_CLASSES_INVALID'],
    [
      'pair before max users',
      { ...base, user_limit_mbps: 1, max_throttled_users: 500 },
      'BW_USER_PAIR_REQUIRED',
    ],
    ['missing nas before everything', { limit_mbps: 0 }, 'BW_NAS_REQUIRED'],
  ];
  for (const [name, body, code] of cases) it(`${name} → ${code}`, () => expect(codeOf(body)).to.equal(code));

  it('applies the defaults, drops unknown classes, and sorts and deduplicates dates and weekdays', () => {
    const p = checkProgramme({
      limit_mbps: 8,
      scheduled_dates: ['2026-12-05', '2026-11-28', '2026-12-05'],
      schedule_weekdays: [6, 0, 6],
      essential_classes: ['whatsapp', 'nope', 'dns', 'dns'],
    });
    expect(p).to.deep.equal({
      enabled: true,
      mode: 'BOTH',
      limit_mbps: 8,
      essential_share: 0.25,
      essential_classes: ['dns', 'whatsapp'],
      scheduled_dates: ['2026-11-28', '2026-12-05'],
      schedule_weekdays: [0, 6],
      daily_quota_gb: null,
      monthly_quota_gb: null,
      user_daily_quota_gb: null,
      user_limit_mbps: null,
      max_throttled_users: 10,
    });
  });

  it('knows real calendar dates', () => {
    for (const d of ['2024-02-29', '2026-12-31']) expect(isCalendarDate(d), d).to.equal(true);
    for (const d of ['2026-02-29', '2026-13-01', '26-11-28', '2026-1-01', 20261128])
      expect(isCalendarDate(d), String(d)).to.equal(false);
  });
});
