import { randomBytes } from 'node:crypto';

// Ids are UUID version 7: 48 bits of Unix milliseconds, then random bits. New rows land at the
// right edge of every primary-key index instead of at random pages, which keeps large inserts
// (a 1,000-ticket batch) from dirtying one index page per row on SQLite and PostgreSQL alike.
// Within one millisecond a counter in the random part keeps ids increasing.
let lastMs = 0;
let counter = 0;

export function newId(now: number = Date.now()): string {
  if (now <= lastMs) {
    counter = (counter + 1) & 0xfff;
    if (counter === 0) lastMs += 1; // 4,096 ids in one millisecond: borrow the next one
    now = lastMs;
  } else {
    lastMs = now;
    counter = randomBytes(2).readUInt16BE(0) & 0x7ff; // leave room to count up within the ms
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (counter >> 8); // version 7 + top 4 bits of the counter
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
