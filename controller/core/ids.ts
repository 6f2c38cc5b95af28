import { v7 } from 'uuid';

// Ids are UUID version 7: 48 bits of Unix milliseconds, then random bits. New rows land at the
// right edge of every primary-key index instead of at random pages, which keeps large inserts
// (a 1,000-ticket batch) from dirtying one index page per row on SQLite and PostgreSQL alike.
// Without `msecs`, the `uuid` package keeps ids of one process increasing, also within one
// millisecond. With `msecs` (a caller's injected clock, `clock.now().getTime()`), the id carries
// that time exactly.
export function newId(msecs?: number): string {
  return msecs === undefined ? v7() : v7({ msecs });
}
