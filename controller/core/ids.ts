import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

// Ids are UUID version 7: 48 bits of Unix milliseconds, then random bits. New rows land at the
// right edge of every primary-key index instead of at random pages, which keeps large inserts
// (a 1,000-ticket batch) from dirtying one index page per row on SQLite and PostgreSQL alike.
// Without `msecs`, ids of one process keep increasing, also within one millisecond (the `uuid`
// package's own rule: a 32-bit counter drawn at random each new millisecond, then incremented).
// With `msecs` (a caller's injected clock, `clock.now().getTime()`), the id carries that time exactly.
//
// The random bytes come from a pool refilled 4 KiB at a time: the package draws 16 bytes from the
// Web Crypto API per id, which costs more than the rest of making it (an id per command sent, per
// ticket sold).
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolAt = POOL_BYTES;
const state = { msecs: -Infinity, seq: 0 };

function randomBytes16(): Uint8Array {
  if (poolAt + 16 > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const bytes = pool.subarray(poolAt, poolAt + 16);
  poolAt += 16;
  return bytes;
}

export function newId(msecs?: number): string {
  const random = randomBytes16();
  if (msecs !== undefined) return v7({ msecs, random });
  const now = Date.now();
  if (now > state.msecs) {
    state.msecs = now;
    state.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs += 1;
  }
  return v7({ msecs: state.msecs, seq: state.seq, random });
}

/** A UUID in its text form, any version, either case: what an id in a path or a body must look like. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` can be an id (checked before a read, so a malformed one finds nothing at no cost). */
export const isUuid = (text: string): boolean => UUID_PATTERN.test(text);
