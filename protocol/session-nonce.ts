import { randomBytes } from 'node:crypto';

/** Byte length of the nonces `generateSessionNonce` makes. */
export const SESSION_NONCE_BYTES = 32;

/**
 * A fresh challenge nonce (base64 of 32 random bytes). The controller sends it in `challenge` and it
 * becomes the `sid` of every envelope on that connection, both ways.
 */
export function generateSessionNonce(): string {
  return randomBytes(SESSION_NONCE_BYTES).toString('base64');
}
