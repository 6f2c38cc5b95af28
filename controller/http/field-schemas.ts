// Shared zod pieces for the fields every module reads the same way.
import { z } from 'zod';

// Decimal digits only: `z.coerce.number()` would take `0x10`, `1e3`, `" 5 "` and `""` (as 0).
const DECIMAL_INTEGER = /^-?\d{1,15}$/;

/** An integer in a query string, written in decimal digits (no sign but `-`, no spaces, no exponent). */
export function queryInt(bounds: { min?: number; max?: number } = {}) {
  let n = z.number().int();
  if (bounds.min !== undefined) n = n.min(bounds.min);
  if (bounds.max !== undefined) n = n.max(bounds.max);
  return z
    .string()
    .regex(DECIMAL_INTEGER, 'must be an integer written in decimal digits')
    .transform(Number)
    .pipe(n);
}

// Control characters (C0, DEL, C1) and the Unicode line and paragraph separators: a router stores
// a NUL or a line break in a name or a comment, and they break its scripts, exports and printouts.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

/** Refuses control characters in a name or text that is written to a router. */
export function routerText<S extends z.ZodString>(schema: S): S {
  return schema.refine((v) => !CONTROL.test(v), 'must not hold control characters') as unknown as S;
}
