// UTC days: the affluence report's unit. Pure, so the bucketing rules are tested as tables.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD (2026-02-30 is not one). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}

/** The UTC day containing `at`, as YYYY-MM-DD. */
export const utcDate = (at: Date): string => at.toISOString().slice(0, 10);

/** [start, end) of a UTC day as ISO strings: the authentication log's `at` compares as text. */
export function dayRange(date: string): { from: string; to: string } {
  const start = new Date(`${date}T00:00:00.000Z`);
  const end = new Date(start.getTime() + 86_400_000);
  return { from: start.toISOString(), to: end.toISOString() };
}

/**
 * The day a report run at `now` covers: the day of the most recent `HH:MM` UTC at or before now.
 * A run at 20:00 reports that day; a run delayed past midnight (controller down) still reports the
 * day whose 20:00 it missed.
 */
export function reportDate(now: Date, atUtc: string): string {
  const [h, m] = atUtc.split(':').map(Number) as [number, number];
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), h, m));
  if (today.getTime() > now.getTime()) today.setUTCDate(today.getUTCDate() - 1);
  return utcDate(today);
}
