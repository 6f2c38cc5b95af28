// One-time agent enrolment codes: 12 characters from an alphabet without look-alikes, shown as
// XXXX-XXXX-XXXX, stored only as a SHA-256 hash of their normalised form.
import { createHash, randomInt } from 'node:crypto';
import { normaliseEnrolCode } from '../../../protocol/index.js';

// No 0/O, 1/I/L: people read these codes off a screen and type them on a router or a phone.
export const ENROL_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const ENROL_CODE_LENGTH = 12;
export const ENROL_CODE_TTL_MS = 24 * 3_600_000;

/** A fresh code in its display form, e.g. `K7QM-2XRT-9HWE` (crypto-random, uniform per character). */
export function generateEnrolCode(): string {
  let raw = '';
  for (let i = 0; i < ENROL_CODE_LENGTH; i++)
    raw += ENROL_CODE_ALPHABET[randomInt(ENROL_CODE_ALPHABET.length)];
  return raw.match(/.{4}/g)!.join('-');
}

/** The stored form: SHA-256 hex of the code as the agent sends it (separators removed, upper case). */
export function hashEnrolCode(code: string): string {
  return createHash('sha256').update(normaliseEnrolCode(code)).digest('hex');
}
