// RADIUS carries a 64-bit byte count as two 32-bit attributes: the low word (Acct-*-Octets,
// Mikrotik-Total-Limit) and the gigawords, the high word (Acct-*-Gigawords, Mikrotik-Total-Limit-Gigawords).

const TWO_POW_32 = 4_294_967_296;

/** A 64-bit byte count as RADIUS carries it: low 32 bits and the gigawords (high 32 bits). */
export function splitGigawords(bytes: number): { octets: number; gigawords: number } {
  return { octets: bytes % TWO_POW_32, gigawords: Math.floor(bytes / TWO_POW_32) };
}

/** The byte count a low word and its gigawords stand for. */
export const joinGigawords = (octets: number, gigawords: number): number => gigawords * TWO_POW_32 + octets;
