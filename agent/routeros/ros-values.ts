// Parsers for values as RouterOS prints them over the API (all strings).

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  w: 604800,
  d: 86400,
  h: 3600,
  m: 60,
  s: 1,
  ms: 0.001,
  us: 0.000001,
};

/**
 * Seconds in a RouterOS duration: "1w2d3h4m5s", "3h", "500ms", "00:05:00",
 * "1d02:03:04" (older prints). Undefined when the text is not a duration.
 */
export function parseRouterOsDuration(text: string): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const clock = /^(?:(\d+)w)?(?:(\d+)d\s*)?(\d+):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(t);
  if (clock) {
    const [, w = '0', d = '0', h, m, s, frac] = clock;
    const fraction = frac ? Number(`0.${frac}`) : 0;
    return Number(w) * 604800 + Number(d) * 86400 + Number(h) * 3600 + Number(m) * 60 + Number(s) + fraction;
  }
  // units must come largest first and at most once, as RouterOS prints them
  const re = /(\d+)(ms|us|w|d|h|m|s)/y;
  let total = 0;
  let lastUnit = Infinity;
  let consumed = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    const unit = UNIT_SECONDS[m[2] as string] as number;
    if (unit >= lastUnit) return undefined;
    lastUnit = unit;
    total += Number(m[1]) * unit;
    consumed = re.lastIndex;
  }
  return consumed === t.length ? total : undefined;
}

/** RouterOS booleans print as true/false; inputs may say yes/no. Undefined for anything else. */
export function parseRouterOsBoolean(text: string | undefined): boolean | undefined {
  switch (text?.trim().toLowerCase()) {
    case 'true':
    case 'yes':
      return true;
    case 'false':
    case 'no':
      return false;
    default:
      return undefined;
  }
}

/** A non-negative integer as RouterOS prints counters and sizes; undefined otherwise. */
export function parseRouterOsInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
