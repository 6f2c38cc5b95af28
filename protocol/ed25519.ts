// Ed25519 detached signatures on the hot path. tweetnacl is the reference (it makes the keys and
// tests cross-check it), but in pure JavaScript it costs ~4 ms to sign and ~7 ms to verify here,
// which would dominate every command round trip. node:crypto's native Ed25519 gives byte-identical
// signatures in ~0.03 / ~0.07 ms, so sign and verify go through it.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

// DER prefixes that wrap a raw 32-byte Ed25519 seed (PKCS#8) or public key (SPKI).
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

// Keys are re-used across thousands of messages; keep their KeyObjects, bounded so a flood of
// distinct keys cannot grow the cache without limit.
const MAX_CACHED = 50_000;
const privateKeys = new Map<string, KeyObject>();
const publicKeys = new Map<string, KeyObject>();

function cached(cache: Map<string, KeyObject>, raw: Uint8Array, make: (der: Buffer) => KeyObject): KeyObject {
  const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64');
  let key = cache.get(id);
  if (!key) {
    if (cache.size >= MAX_CACHED) cache.clear();
    key = make(Buffer.from(raw));
    cache.set(id, key);
  }
  return key;
}

/**
 * Signs `message` with a 64-byte tweetnacl-layout secret key (seed then public key).
 * @returns the 64-byte detached signature, identical to `nacl.sign.detached`.
 */
export function signDetached(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  const key = cached(privateKeys, secretKey.subarray(0, 32), (seed) =>
    createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' }),
  );
  return new Uint8Array(sign(null, message, key));
}

/** Verifies a detached Ed25519 signature against a 32-byte public key, like `nacl.sign.detached.verify`. */
export function verifyDetached(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  const key = cached(publicKeys, publicKey, (raw) =>
    createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' }),
  );
  return verify(null, message, key, signature);
}
