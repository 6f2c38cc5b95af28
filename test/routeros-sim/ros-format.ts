// Value formatting as the RouterOS API prints it (everything is a string).
import type { Capabilities } from './version-caps.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const pad = (n: number): string => String(n).padStart(2, '0');

/** Date part as /system/clock prints it: jan/31/2025 (v6, early v7) or 2025-01-31 (7.10+). */
export function formatDate(caps: Capabilities, d: Date): string {
  return caps.isoDates
    ? `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
    : `${MONTHS[d.getUTCMonth()]}/${pad(d.getUTCDate())}/${d.getUTCFullYear()}`;
}

export function formatTime(d: Date): string {
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export function formatDateTime(caps: Capabilities, d: Date): string {
  return `${formatDate(caps, d)} ${formatTime(d)}`;
}

/** Build-time style used by /system/resource: "Sep/06/2023 08:50:15" on v6. */
export function formatBuildTime(caps: Capabilities, d: Date): string {
  if (caps.isoDates) return formatDateTime(caps, d);
  const m = MONTHS[d.getUTCMonth()] ?? 'jan';
  return `${m[0]?.toUpperCase()}${m.slice(1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()} ${formatTime(d)}`;
}

/** RouterOS duration: 1w2d3h4m5s (and 300ms), zero parts omitted, "0s" for nothing. */
export function formatDuration(totalSeconds: number): string {
  const total = Math.max(0, totalSeconds);
  let s = Math.floor(total);
  const ms = Math.round((total - s) * 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['w', 604800],
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (s >= size) {
      parts.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
  }
  if (s > 0 || (parts.length === 0 && ms === 0)) parts.push(`${s}s`);
  if (ms > 0) parts.push(`${ms}ms`);
  return parts.join('');
}

/** Parses 1w2d3h4m5s or hh:mm:ss into seconds; undefined when not a duration. */
export function parseDuration(text: string): number | undefined {
  const clock = /^(?:(\d+)d\s*)?(\d+):(\d{2}):(\d{2})$/.exec(text);
  if (clock)
    return Number(clock[1] ?? 0) * 86400 + Number(clock[2]) * 3600 + Number(clock[3]) * 60 + Number(clock[4]);
  const re = /(\d+)(w|d|h|ms|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const n = Number(m[1]);
    const unit = m[2];
    total +=
      unit === 'w'
        ? n * 604800
        : unit === 'd'
          ? n * 86400
          : unit === 'h'
            ? n * 3600
            : unit === 'm'
              ? n * 60
              : unit === 's'
                ? n
                : n / 1000;
    consumed += m[0].length;
  }
  return consumed === text.length && consumed > 0 ? total : undefined;
}

/** Normalises API boolean input (yes/no/true/false) to the printed form. */
export function normaliseBool(value: string): string | undefined {
  const v = value.toLowerCase();
  if (v === 'yes' || v === 'true') return 'true';
  if (v === 'no' || v === 'false') return 'false';
  return undefined;
}

export function formatId(n: number): string {
  return `*${n.toString(16).toUpperCase()}`;
}

export function parseId(text: string): number | undefined {
  return /^\*[0-9a-fA-F]+$/.test(text) ? parseInt(text.slice(1), 16) : undefined;
}
