// A router's local day: days, quotas and schedules follow the router's time zone (UTC when it is
// unknown or not a zone this runtime knows).

export interface RouterDay {
  /** YYYY-MM-DD in the zone. */
  day: string;
  /** 0 is Sunday. */
  weekday: number;
  /** Hours elapsed since the local midnight (0 to 24). */
  hoursIntoDay: number;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone if this runtime knows it, else UTC. */
export function knownZone(timeZone: string | null | undefined): string {
  if (!timeZone) return 'UTC';
  if (formats.has(timeZone)) return timeZone;
  try {
    formatter(timeZone);
    return timeZone;
  } catch {
    return 'UTC';
  }
}

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      weekday: 'short',
    });
    formats.set(timeZone, f);
  }
  return f;
}

export function routerDay(now: Date, timeZone: string | null | undefined): RouterDay {
  const parts = formatter(knownZone(timeZone)).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return {
    day: `${get('year')}-${get('month')}-${get('day')}`,
    weekday: WEEKDAYS.indexOf(get('weekday')),
    hoursIntoDay: Number(get('hour')) + Number(get('minute')) / 60,
  };
}

/** The day `n` days after `day` (negative: before), calendar arithmetic. */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}
