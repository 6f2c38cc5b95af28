// Quota units: the data and time limits of a profile as people write them (RouterOS style:
// `500M`, `10G`, `1h30m`, `7d`, `01:30:00`).

const BYTE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
const TIME_UNITS: [string, number][] = [
  ['w', 604_800],
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
];

/**
 * `10G` → 10 × 2^30 bytes. Units are binary as RouterOS reads `limit-bytes-total`; a plain
 * integer is a byte count. Returns null when the text is not a positive size.
 */
export function parseDataLimit(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)[bB]?$/.exec(text.trim());
  if (!m) return null;
  const bytes = Math.floor(Number(m[1]) * BYTE_UNITS[m[2]!.toLowerCase()]!);
  return bytes >= 1 && Number.isSafeInteger(bytes) ? bytes : null;
}

/** The largest binary unit that divides the size exactly: 10737418240 → `10G`, 1500 → `1500`. */
export function formatDataLimit(bytes: number): string {
  for (const unit of ['T', 'G', 'M', 'k'] as const) {
    const size = BYTE_UNITS[unit.toLowerCase()]!;
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** `1w2d3h4m5s`, `7d`, `01:30:00`, `1d 02:00:00`, or plain seconds → seconds; null when malformed or 0. */
export function parseDuration(text: string): number | null {
  const t = text.trim().toLowerCase();
  let seconds: number | null = null;
  const clock = /^(?:(\d+)d\s*)?(\d{1,3}):([0-5]\d):([0-5]\d)$/.exec(t);
  if (clock) {
    seconds =
      Number(clock[1] ?? 0) * 86_400 + Number(clock[2]) * 3_600 + Number(clock[3]) * 60 + Number(clock[4]);
  } else if (/^\d+$/.test(t)) {
    seconds = Number(t);
  } else if (/^(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?$/.test(t) && t !== '') {
    seconds = 0;
    for (const [unit, size] of TIME_UNITS) {
      const part = new RegExp(`(\\d+)${unit}`).exec(t);
      if (part) seconds += Number(part[1]) * size;
    }
  }
  return seconds !== null && seconds >= 1 && Number.isSafeInteger(seconds) ? seconds : null;
}

/** 90000 → `1d1h`; weeks are written as days (`7d`) since that is how vouchers are sold. */
export function formatDuration(seconds: number): string {
  let rest = seconds;
  let out = '';
  for (const [unit, size] of TIME_UNITS) {
    if (unit === 'w') continue;
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || '0s';
}
