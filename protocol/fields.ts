import { z } from 'zod';
import { decodeBase64Strict } from './base64.js';
import { PUBLIC_KEY_BYTES } from './key-pair.js';

/** Builds a schema for canonical base64 whose decoded length is within [min, max] bytes. */
export function base64Bytes(min: number, max: number): z.ZodString {
  return z.string().refine(
    (text) => {
      const bytes = decodeBase64Strict(text);
      return bytes !== undefined && bytes.length >= min && bytes.length <= max;
    },
    { message: `expected standard padded base64 of ${min}..${max} bytes` },
  );
}

/** A UTC ISO 8601 time with `Z`, as `Date#toISOString` writes it (the only form on the wire). */
export const isoTimeSchema = z.iso.datetime();

/** A UUID (RFC 9562 layout); all ids on the link (agent, allocation, command, report) are UUIDs. */
export const uuidSchema = z.uuid();

/** A base64 Ed25519 public key (exactly 32 bytes once decoded). */
export const publicKeySchema = base64Bytes(PUBLIC_KEY_BYTES, PUBLIC_KEY_BYTES);

/** A session id / challenge nonce: base64 of 16 to 64 random bytes (the controller uses 32). */
export const sessionIdSchema = base64Bytes(16, 64);

/** A non-empty line of text of bounded length, for names, versions and labels. */
export function label(max = 200): z.ZodString {
  return z.string().min(1).max(max);
}

/** A JSON object with unknown members (arrays and null refused). */
export const jsonObjectSchema = z.record(z.string(), z.unknown());
