// Values of the script interpreter and RouterOS-like conversions between
// them. RouterOS compares loosely: `[find] = ""` is true when nothing was
// found, and "5" = 5 holds.
import type { Command } from './script-parser.js';
import { formatId } from './ros-format.js';

/** An internal item id as `find` returns it (prints as *1A). */
export class RosId {
  constructor(readonly id: number) {}

  toString(): string {
    return formatId(this.id);
  }
}

/** A `{ ... }` code block used as a value (do=, on-error=, source=). */
export class CodeBlock {
  constructor(
    readonly body: Command[],
    readonly source: string,
  ) {}
}

export type Value = string | number | boolean | RosId | CodeBlock | Value[] | undefined;

export function typeOf(v: Value): string {
  if (v === undefined) return 'nil';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'number') return 'num';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof RosId) return 'id';
  if (v instanceof CodeBlock) return 'code';
  return 'array';
}

/** Text form, as `:put` prints it and as it is sent as a command argument. */
export function toText(v: Value): string {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof RosId) return v.toString();
  if (v instanceof CodeBlock) return v.source;
  return v.map(toText).join(';');
}

/** Form of a value given as a command argument (lists are comma-separated there). */
export function toArgument(v: Value): string {
  if (Array.isArray(v)) return v.map(toArgument).join(',');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return toText(v);
}

export function toNumber(v: Value): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v.trim());
  return undefined;
}

export function isTrue(v: Value): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v === 'true' || v === 'yes';
  return false;
}

export function length(v: Value): number {
  if (Array.isArray(v)) return v.length;
  if (v === undefined) return 0;
  return toText(v).length;
}

export function compare(op: string, a: Value, b: Value): boolean {
  if (op === '~') return matches(toText(a), toText(b));
  const na = toNumber(a);
  const nb = toNumber(b);
  const numeric = na !== undefined && nb !== undefined;
  const diff = numeric ? na - nb : toText(a) < toText(b) ? -1 : toText(a) > toText(b) ? 1 : 0;
  switch (op) {
    case '=':
      return numeric ? diff === 0 : looseText(a) === looseText(b);
    case '!=':
      return numeric ? diff !== 0 : looseText(a) !== looseText(b);
    case '<':
      return diff < 0;
    case '>':
      return diff > 0;
    case '<=':
      return diff <= 0;
    default:
      return diff >= 0;
  }
}

/** yes/no and true/false are the same value when compared. */
function looseText(v: Value): string {
  const t = toText(v);
  if (t === 'yes') return 'true';
  if (t === 'no') return 'false';
  return t;
}

function matches(text: string, pattern: string): boolean {
  try {
    return new RegExp(pattern).test(text);
  } catch {
    return text.includes(pattern);
  }
}

export function arithmetic(op: string, a: Value, b: Value): Value {
  if (op === '.') return toText(a) + toText(b);
  const na = toNumber(a);
  const nb = toNumber(b);
  if (na === undefined || nb === undefined) {
    if (op === '+') return toText(a) + toText(b);
    return undefined;
  }
  if (op === '+') return na + nb;
  if (op === '-') return na - nb;
  if (op === '*') return na * nb;
  return nb === 0 ? undefined : Math.trunc(na / nb);
}
