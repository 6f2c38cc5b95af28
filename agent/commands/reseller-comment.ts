// Reads the comment the local mobile app writes on a reseller's hotspot user:
//   tnr1|u=Awa|fn=Awa|ln=Diop|tel=77 12|bal=20000|com=10|cr=2026-06-23|mv=txn_…:-4500:achat:9x 500F;…
// Pure and tolerant: a real fleet has trailing spaces, missing keys, unknown keys, keys in another
// order and accents. What cannot be read is skipped with a warning, never guessed.
// Format: test/routeros-sim/README.md, "Reseller accounts on the router".
import { isoTime } from '../../protocol/index.js';

export const RESELLER_COMMENT_MARKER = 'tnr1';

export interface ParsedMovement {
  /** Trimmed `txn_<ms>_<random>`: the idempotency key of the imported line. */
  id: string;
  amount: number;
  kind: string;
  note?: string;
  /** ISO time carried by the id, or null. */
  at: string | null;
}

export interface ParsedResellerComment {
  login?: string;
  first_name?: string;
  last_name?: string;
  phone?: string;
  email?: string;
  balance: number | null;
  commission_rate: number | null;
  created_on: string | null;
  movements: ParsedMovement[];
  warnings: string[];
}

const MAX_WARNINGS = 100;
/** The protocol's cap per account (the app itself keeps 20). */
const MAX_MOVEMENTS = 1000;
const TEXT_LIMITS: Readonly<Record<string, number>> = { u: 200, fn: 200, ln: 200, tel: 100, em: 300 };

/** True for a reseller account's comment: the marker, then `|`. Anything else is not one. */
export function isResellerComment(comment: string | undefined): comment is string {
  return comment !== undefined && comment.trimStart().startsWith(`${RESELLER_COMMENT_MARKER}|`);
}

export function parseResellerComment(comment: string): ParsedResellerComment {
  const warnings: string[] = [];
  const warn = (text: string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push(text.slice(0, 300));
  };
  const fields = splitFields(comment.trimStart().slice(RESELLER_COMMENT_MARKER.length + 1), warn);
  const text = (key: string): string | undefined => {
    const v = fields.get(key)?.trim();
    return v ? v.slice(0, TEXT_LIMITS[key] ?? 200) : undefined;
  };
  const parsed: ParsedResellerComment = {
    balance: integerField(fields.get('bal'), 'bal', warn),
    commission_rate: percentField(fields.get('com'), warn),
    created_on: dateField(fields.get('cr'), warn),
    movements: parseMovements(fields.get('mv') ?? '', warn),
    warnings,
  };
  const optional: [keyof ParsedResellerComment, string][] = [
    ['login', 'u'],
    ['first_name', 'fn'],
    ['last_name', 'ln'],
    ['phone', 'tel'],
    ['email', 'em'],
  ];
  for (const [prop, key] of optional) {
    const v = text(key);
    if (v !== undefined) (parsed as unknown as Record<string, string>)[prop] = v;
  }
  return parsed;
}

/** `key=value` parts split on `|`, each at its first `=`. The first occurrence of a key wins. */
function splitFields(rest: string, warn: (t: string) => void): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of rest.split('|')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? '' : part.slice(0, eq).trim().toLowerCase();
    if (!key) {
      warn(`part without a key ignored: "${part.slice(0, 40)}"`);
      continue;
    }
    if (fields.has(key)) {
      warn(`key ${key} repeated; the first value is kept`);
      continue;
    }
    fields.set(key, part.slice(eq + 1));
  }
  return fields;
}

function integerField(raw: string | undefined, key: string, warn: (t: string) => void): number | null {
  if (raw === undefined) {
    warn(`no ${key}`);
    return null;
  }
  const n = parseSignedInteger(raw);
  if (n === undefined) warn(`${key} is not a whole number: "${raw.slice(0, 40)}"`);
  return n ?? null;
}

function percentField(raw: string | undefined, warn: (t: string) => void): number | null {
  if (raw === undefined || raw.trim() === '') return null;
  const t = raw.trim().replace(',', '.').replace(/%$/, '');
  const n = /^\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
  if (!(n >= 0 && n <= 100)) {
    warn(`com is not a percentage: "${raw.slice(0, 40)}"`);
    return null;
  }
  return n;
}

function dateField(raw: string | undefined, warn: (t: string) => void): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  const t = raw.trim();
  if (isCalendarDate(t)) return t;
  warn(`cr is not a date: "${t.slice(0, 40)}"`);
  return null;
}

/** `id:amount:kind[:note]` separated by `;`, oldest first. Unreadable or repeated ids are skipped. */
function parseMovements(raw: string, warn: (t: string) => void): ParsedMovement[] {
  const seen = new Set<string>();
  const movements: ParsedMovement[] = [];
  let truncated = false;
  raw.split(';').forEach((item, index) => {
    if (item.trim() === '') return;
    if (movements.length === MAX_MOVEMENTS) {
      if (!truncated) warn(`more than ${MAX_MOVEMENTS} movements; the rest are left out`);
      truncated = true;
      return;
    }
    const [rawId = '', rawAmount = '', rawKind = '', ...rest] = item.split(':');
    const id = rawId.trim();
    if (!/^txn_\S{1,60}$/.test(id)) {
      warn(`movement ${index + 1} skipped: id "${id.slice(0, 40)}" is not txn_…`);
      return;
    }
    const amount = parseSignedInteger(rawAmount);
    if (amount === undefined) {
      warn(`movement ${id} skipped: amount "${rawAmount.slice(0, 20)}" is not a whole number`);
      return;
    }
    if (seen.has(id)) {
      warn(`movement ${id} repeated; the first is kept`);
      return;
    }
    seen.add(id);
    // A note holding ':' would be cut by the split; the app never writes one, but keep it whole.
    const note = rest.join(':').trim();
    movements.push({
      id,
      amount,
      kind: rawKind.trim().toLowerCase().slice(0, 40),
      ...(note ? { note: note.slice(0, 200) } : {}),
      at: timeOfId(id),
    });
  });
  return movements;
}

/** `+10000`, `-4500`, `0`; spaces around are tolerated. */
function parseSignedInteger(raw: string): number | undefined {
  const t = raw.trim();
  if (!/^[+-]?\d{1,15}$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** `txn_<13-digit unix ms>_…` (or 10-digit seconds) gives the movement's time. */
function timeOfId(id: string): string | null {
  const digits = /^txn_(\d+)_/.exec(id)?.[1];
  if (digits === undefined || (digits.length !== 13 && digits.length !== 10)) return null;
  const ms = Number(digits) * (digits.length === 10 ? 1000 : 1);
  const d = new Date(ms);
  // Before 2010 or after 2100 is not a movement time, whatever the digits say.
  return ms >= Date.UTC(2010, 0, 1) && ms < Date.UTC(2100, 0, 1) ? isoTime(d) : null;
}

function isCalendarDate(t: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return isoTime(d).slice(0, 10) === t;
}

/**
 * The seller a ticket comment names (`vendu par Moussa`), as written and trimmed; undefined when
 * the comment names none. A tag is attribution only: it never makes a reseller.
 */
export function sellerTag(comment: string | undefined): string | undefined {
  if (!comment) return undefined;
  const m = /\bvendu\s+par\s+([^|;,\n]+)/i.exec(comment);
  const name = m?.[1]?.trim();
  return name ? name.slice(0, 64) : undefined;
}
