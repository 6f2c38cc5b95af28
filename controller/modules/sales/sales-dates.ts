// Dates as the local ticket manager writes them from the router's clock: `jan/31/2025` (RouterOS 6
// and early 7) or `2025-01-31` (7.10+), times `10:04:59`, and its month tag `jan2025` (script owner).
// The router's wall clock is kept as is (stored with Z): the controller does not know the router's
// time zone, and a sale must stay in the month the seller saw.

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const pad = (n: number): string => String(n).padStart(2, '0');

function calendarDate(y: number, m: number, d: number): string | undefined {
  if (y < 2000 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCMonth() === m - 1 ? `${y}-${pad(m)}-${pad(d)}` : undefined;
}

/** `YYYY-MM-DD` from either RouterOS style; undefined for anything else (Feb 30 included). */
export function parseRouterDate(text: string | undefined): string | undefined {
  const t = text?.trim() ?? '';
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (iso) return calendarDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const old = /^([a-z]{3})\/(\d{1,2})\/(\d{4})$/i.exec(t);
  if (old) {
    const month = MONTHS.indexOf(old[1]!.toLowerCase());
    return month < 0 ? undefined : calendarDate(Number(old[3]), month + 1, Number(old[2]));
  }
  return undefined;
}

/** `HH:MM:SS` from `10:04:59` or `9:04`; undefined otherwise. */
export function parseClock(text: string | undefined): string | undefined {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text?.trim() ?? '');
  if (!m) return undefined;
  const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  return h < 24 && min < 60 && s < 60 ? `${pad(h)}:${pad(min)}:${pad(s)}` : undefined;
}

/** ISO time from a date and a clock; a date without a readable clock is taken at midnight. */
export function isoFrom(date: string, clock: string | undefined): string {
  return `${date}T${clock ?? '00:00:00'}.000Z`;
}

/** `2025-01-31 10:00:00` or `jan/31/2025 10:00:00` as ISO; undefined when not both readable. */
export function parseRouterDateTime(text: string | undefined): string | undefined {
  const [datePart, clockPart, ...rest] = (text?.trim() ?? '').split(/\s+/);
  if (rest.length > 0) return undefined;
  const date = parseRouterDate(datePart);
  const clock = parseClock(clockPart);
  return date && clock ? isoFrom(date, clock) : undefined;
}

/** The app's month tag `mar2026` (script owner) as `2026-03`; undefined otherwise. */
export function monthOfTag(text: string | undefined): string | undefined {
  const m = /^([a-z]{3})(\d{4})$/i.exec(text?.trim() ?? '');
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[1]!.toLowerCase());
  const year = Number(m[2]);
  return month < 0 || year < 2000 || year > 2100 ? undefined : `${year}-${pad(month + 1)}`;
}
