// What a NAS's usage means (docs/api/qoe.md, "Usage"): pure, from the usage store's totals for the
// router's day. Volumes leave in GB (10^9 bytes); thresholds are judged in GiB (2^30 bytes) on the
// exact bytes, never on rounded figures.

export const GB = 1e9;
const GIB = 2 ** 30;
/** The daily alert and `daily_warning`: 100 GiB through the WAN in the router's day. */
export const DAILY_WARNING_BYTES = 100 * GIB;
/** `accelerating` needs this much in the last two hours… */
export const ACCELERATION_MIN_BYTES = 5 * GIB;
/** …and a two-hour rate at least 35 percent above the day's earlier hourly rate. */
export const ACCELERATION_MIN_RISE_PCT = 35;

export interface UsageInput {
  /** Bytes of the router's day so far and of the last two hours; null when never measured. */
  dayBytes: number | null;
  twoHoursBytes: number | null;
  /** Hours elapsed since the router's local midnight (0 to 24). */
  hoursIntoDay: number;
}

export interface UsageVerdict {
  daily_gb: number | null;
  last_two_hours_gb: number | null;
  acceleration_pct: number | null;
  daily_warning: boolean;
  accelerating: boolean;
}

/**
 * The rise of the last two hours' rate over the earlier part of the day's, as a ratio minus one;
 * null when the day has no earlier volume (the first two hours, or nothing before them).
 */
export function accelerationRatio(u: UsageInput): number | null {
  if (u.dayBytes === null || u.twoHoursBytes === null || u.hoursIntoDay <= 2) return null;
  const earlier = u.dayBytes - u.twoHoursBytes;
  if (earlier <= 0) return null;
  const earlierRate = earlier / (u.hoursIntoDay - 2);
  return u.twoHoursBytes / 2 / earlierRate - 1;
}

/**
 * recent/2 >= (1 + 35 %) × earlier/(hours − 2), multiplied out so it is judged on the exact
 * bytes: 34.96 percent is not 35 even though it prints as 35.0.
 */
function risesEnough(earlier: number, recent: number, hoursIntoDay: number): boolean {
  return recent * (hoursIntoDay - 2) * 100 >= 2 * (100 + ACCELERATION_MIN_RISE_PCT) * earlier;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export function usageVerdict(u: UsageInput): UsageVerdict {
  const ratio = accelerationRatio(u);
  return {
    daily_gb: u.dayBytes === null ? null : round(u.dayBytes / GB, 3),
    last_two_hours_gb: u.twoHoursBytes === null ? null : round(u.twoHoursBytes / GB, 3),
    acceleration_pct: ratio === null ? null : round(ratio * 100, 1),
    daily_warning: u.dayBytes !== null && u.dayBytes >= DAILY_WARNING_BYTES,
    accelerating:
      u.twoHoursBytes !== null &&
      u.twoHoursBytes >= ACCELERATION_MIN_BYTES &&
      ratio !== null &&
      risesEnough(u.dayBytes! - u.twoHoursBytes, u.twoHoursBytes, u.hoursIntoDay),
  };
}
