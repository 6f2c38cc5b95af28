// How many rows one statement may carry.
import type { DialectCapabilities } from '../../db/capabilities.js';

/** Rows of `columns` values one statement may carry under the dialect's bind-parameter limit. */
export function rowsPerStatement(caps: DialectCapabilities, columns: number): number {
  return Math.max(1, Math.floor((caps.maxBindParameters - 16) / columns));
}
