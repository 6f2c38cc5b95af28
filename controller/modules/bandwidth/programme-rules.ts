// The programme a manager sends (`PUT /bandwidth/program`), checked in the order of the error
// table of docs/api/bandwidth.md: the first failure answers, nothing is recorded. Pure: the
// ownership check (BW_NAS_NOT_OWNED) sits between `requireNasId` and `checkProgramme` in the service.
import { AppError, type ErrorCode } from '../../core/app-error.js';
import { classById, TRAFFIC_CLASSES } from './classes.js';

export type ProgrammeMode = 'SCHEDULED' | 'ADAPTIVE' | 'BOTH';

export const LIMIT_MBPS_MAX = 10_000;
export const DEFAULT_ESSENTIAL_SHARE = 0.25;
export const DEFAULT_MAX_THROTTLED_USERS = 10;
export const MAX_THROTTLED_USERS = 100;

/** A programme as stored: every default applied, lists deduplicated and sorted. */
export interface Programme {
  enabled: boolean;
  mode: ProgrammeMode;
  limit_mbps: number;
  essential_share: number;
  essential_classes: string[];
  scheduled_dates: string[];
  schedule_weekdays: number[];
  daily_quota_gb: number | null;
  monthly_quota_gb: number | null;
  user_daily_quota_gb: number | null;
  user_limit_mbps: number | null;
  max_throttled_users: number;
}

type Body = Record<string, unknown>;

const fail = (code: ErrorCode, message: string, field: string): never => {
  throw new AppError(code, message, { details: [{ field, message }] });
};

const absent = (v: unknown): boolean => v === undefined || v === null;
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** BW_NAS_REQUIRED when `nas_id` is missing or not a text. */
export function requireNasId(body: Body): string {
  const id = body.nas_id;
  if (typeof id !== 'string' || id.trim() === '')
    return fail('BW_NAS_REQUIRED', 'nas_id is required', 'nas_id');
  return id;
}

/** A real calendar day written YYYY-MM-DD (2026-02-30 is not one). */
export function isCalendarDate(text: unknown): text is string {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** Everything after the NAS: the limit, mode, schedule, share, classes, user pair, user count, quotas. */
export function checkProgramme(body: Body): Programme {
  const limit = body.limit_mbps;
  if (absent(limit)) fail('BW_LIMIT_REQUIRED', 'limit_mbps is required', 'limit_mbps');
  if (!isNumber(limit) || limit <= 0 || limit > LIMIT_MBPS_MAX)
    fail('BW_LIMIT_INVALID', `limit_mbps must be greater than 0 and at most ${LIMIT_MBPS_MAX}`, 'limit_mbps');

  const mode = absent(body.mode) ? 'BOTH' : body.mode;
  if (mode !== 'SCHEDULED' && mode !== 'ADAPTIVE' && mode !== 'BOTH')
    fail('BW_MODE_INVALID', 'mode must be SCHEDULED, ADAPTIVE or BOTH', 'mode');

  const dates = absent(body.scheduled_dates) ? [] : body.scheduled_dates;
  const weekdays = absent(body.schedule_weekdays) ? [] : body.schedule_weekdays;
  const count = (v: unknown) => (Array.isArray(v) ? v.length : 1);
  if (mode === 'SCHEDULED' && count(dates) === 0 && count(weekdays) === 0)
    fail('BW_SCHEDULE_EMPTY', 'a SCHEDULED programme needs at least one date or weekday', 'scheduled_dates');
  if (!Array.isArray(dates) || !dates.every(isCalendarDate))
    fail('BW_DATE_INVALID', 'scheduled_dates must be real dates written YYYY-MM-DD', 'scheduled_dates');
  if (!Array.isArray(weekdays) || !weekdays.every((d) => Number.isInteger(d) && d >= 0 && d <= 6))
    fail(
      'BW_WEEKDAY_INVALID',
      'schedule_weekdays must be integers from 0 (Sunday) to 6',
      'schedule_weekdays',
    );

  const share = absent(body.essential_share) ? DEFAULT_ESSENTIAL_SHARE : body.essential_share;
  if (!isNumber(share) || share <= 0 || share >= 1)
    fail('BW_SHARE_INVALID', 'essential_share must be strictly between 0 and 1', 'essential_share');

  const classes = absent(body.essential_classes) ? TRAFFIC_CLASSES.map((c) => c.id) : body.essential_classes;
  const known = Array.isArray(classes)
    ? [...new Set(classes.filter((c): c is string => typeof c === 'string' && classById(c) !== undefined))]
    : [];
  if (known.length === 0)
    fail('BW_CLASSES_INVALID', 'essential_classes must name at least one known class', 'essential_classes');

  const userQuota = body.user_daily_quota_gb;
  const userLimit = body.user_limit_mbps;
  if (absent(userQuota) !== absent(userLimit))
    fail(
      'BW_USER_PAIR_REQUIRED',
      'user_daily_quota_gb and user_limit_mbps go together: both or neither',
      absent(userQuota) ? 'user_daily_quota_gb' : 'user_limit_mbps',
    );

  const maxUsers = absent(body.max_throttled_users) ? DEFAULT_MAX_THROTTLED_USERS : body.max_throttled_users;
  if (!Number.isInteger(maxUsers) || (maxUsers as number) < 0 || (maxUsers as number) > MAX_THROTTLED_USERS)
    fail(
      'BW_MAX_USERS_INVALID',
      `max_throttled_users must be an integer from 0 to ${MAX_THROTTLED_USERS}`,
      'max_throttled_users',
    );

  const enabled = absent(body.enabled) ? true : body.enabled;
  if (typeof enabled !== 'boolean') fail('VALIDATION_ERROR', 'enabled must be a boolean', 'enabled');

  return {
    enabled: enabled as boolean,
    mode: mode as ProgrammeMode,
    limit_mbps: limit as number,
    essential_share: share as number,
    essential_classes: TRAFFIC_CLASSES.map((c) => c.id).filter((id) => known.includes(id)),
    scheduled_dates: [...new Set(dates as string[])].sort(),
    schedule_weekdays: [...new Set(weekdays as number[])].sort((a, b) => a - b),
    daily_quota_gb: positiveOrNull(body, 'daily_quota_gb'),
    monthly_quota_gb: positiveOrNull(body, 'monthly_quota_gb'),
    user_daily_quota_gb: positiveOrNull(body, 'user_daily_quota_gb'),
    user_limit_mbps: userLimitOrNull(body),
    max_throttled_users: maxUsers as number,
  };
}

// A quota of 0 or less means nothing a router can count against: refused, never read as "none".
function positiveOrNull(body: Body, field: string): number | null {
  const v = body[field];
  if (absent(v)) return null;
  if (!isNumber(v) || v <= 0) fail('VALIDATION_ERROR', `${field} must be a number greater than 0`, field);
  return v as number;
}

function userLimitOrNull(body: Body): number | null {
  const v = body.user_limit_mbps;
  if (absent(v)) return null;
  if (!isNumber(v) || v <= 0 || v > LIMIT_MBPS_MAX)
    fail(
      'VALIDATION_ERROR',
      `user_limit_mbps must be greater than 0 and at most ${LIMIT_MBPS_MAX}`,
      'user_limit_mbps',
    );
  return v as number;
}
