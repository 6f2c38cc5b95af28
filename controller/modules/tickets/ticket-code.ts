// Voucher codes: read aloud, copied from paper and typed on phones, so the alphabet leaves out
// the look-alikes 0/o, 1/i/l and is lowercase (what a phone keyboard types by default).
import { randomBytes } from 'node:crypto';

export const CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** 31^8 ≈ 8.5e11 codes: a tenant holding 100,000 live tickets is guessed once in ~8.5e6 tries. */
export const CODE_LENGTH = 8;

// Bytes at or above this are skipped so every character is equally likely (248 = 8 × 31).
const UNBIASED_LIMIT = 256 - (256 % CODE_ALPHABET.length);

export type RandomSource = (size: number) => Buffer;

/**
 * `count` random codes, distinct among themselves (not yet checked against the database), sorted:
 * a batch then meets the (tenant, code) index in key order, each insert landing beside the last
 * one's path, which costs ~10% less than random order on a large index. The order of a batch
 * means nothing; its codes stay as random as drawn.
 */
export function generateCodes(
  count: number,
  random: RandomSource = randomBytes,
  length = CODE_LENGTH,
): string[] {
  const codes = new Set<string>();
  let pool = random(0);
  let at = 0;
  while (codes.size < count) {
    let code = '';
    while (code.length < length) {
      if (at >= pool.length) {
        pool = random(Math.max(64, (count - codes.size) * length * 2));
        at = 0;
      }
      const byte = pool[at++]!;
      if (byte < UNBIASED_LIMIT) code += CODE_ALPHABET[byte % CODE_ALPHABET.length];
    }
    codes.add(code);
  }
  return [...codes].sort();
}

export const isCodeShaped = (value: string): boolean =>
  value.length === CODE_LENGTH && [...value].every((ch) => CODE_ALPHABET.includes(ch));
