// How many rows one statement may carry, and the lists cut to that size.
import type { DialectCapabilities } from '../../db/capabilities.js';

/** Rows of `columns` values one statement may carry under the dialect's bind-parameter limit. */
export function rowsPerStatement(caps: DialectCapabilities, columns: number): number {
  return Math.max(1, Math.floor((caps.maxBindParameters - 16) / columns));
}

/** `items` cut in consecutive lists of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
