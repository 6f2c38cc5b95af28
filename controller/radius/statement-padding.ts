// The tickets module compiles its RADIUS statements in a few fixed sizes (TICKET_STATEMENT_SIZES)
// and runs a longer list as several of them: 13 codes were three runs of 4 and one of 1, and each run
// costs more than the rows it reads. A statement that names its items in an IN list (and, for an
// update, in a CASE on the same key) gives the same result when an item is repeated, so a list
// padded with copies of its last item up to the next size runs as one statement.
import { TICKET_STATEMENT_SIZES } from '../modules/tickets/index.js';

/**
 * `items` (distinct by key, non-empty or not) padded with copies of the last one so that every run
 * but full ones of the largest size is one statement. Only for statements where a repeated item
 * changes nothing (IN lists, CASE on the item's key with identical values).
 */
export function padToStatementSize<T>(
  items: readonly T[],
  sizes: readonly number[] = TICKET_STATEMENT_SIZES,
): T[] {
  const largest = sizes[0]!;
  const rest = items.length % largest;
  if (rest === 0 || sizes.includes(rest)) return [...items];
  // The smallest size that holds the rest (sizes are in decreasing order).
  let target = largest;
  for (const size of sizes) if (size >= rest) target = size;
  const padded = [...items];
  const last = items[items.length - 1]!;
  for (let i = rest; i < target; i++) padded.push(last);
  return padded;
}
