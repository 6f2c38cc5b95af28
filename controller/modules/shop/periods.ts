// The accounting periods of the shop metrics, in UTC days (`YYYY-MM-DD`, as the daily totals are
// keyed): today, the ISO week from Monday, the calendar month.
export interface PeriodStarts {
  day: string;
  week: string;
  month: string;
}

const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

export function periodStarts(now: Date): PeriodStarts {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  // getUTCDay: Sunday 0 … Saturday 6; the week starts on Monday.
  const sinceMonday = (today.getUTCDay() + 6) % 7;
  const monday = new Date(today.getTime() - sinceMonday * 86_400_000);
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { day: dayOf(today), week: dayOf(monday), month: dayOf(first) };
}

export const utcDay = dayOf;
