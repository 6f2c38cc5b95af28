// Ed25519 detached signatures on the hot path. tweetnacl is the reference (it makes the keys and
// tests cross-check it), but in pure JavaScript it costs ~4 ms to sign and ~7 ms to verify here,
// which would dominate every command round trip. node:crypto's native Ed25519 gives byte-identical
// signatures (~0.035 ms to sign, ~0.1 ms to verify on the 2-core machine), so sign and verify go
// through it. A link makes its KeyObjects once per session (`signingKeyObject`, `verifyingKeyObject`)
// and hands them in with every frame; raw keys are still accepted. A raw secret key's KeyObject is
// cached (an end signs with its one key); a raw public key's is not: the controller verifies each
// agent's hello once per connection, and 10k cached KeyObjects would hold about 10 MB.
// KeyObjects are imported as JWK: OpenSSL 3 decodes a DER key 6 to 8 times slower than it builds one
// from raw bytes, and the controller imports one agent key per handshake.
import { createPrivateKey, createPublicKey, sign, verify, KeyObject } from 'node:crypto';

// Bounded, so a flood of distinct keys cannot grow the cache without limit.
const MAX_CACHED = 1_000;
const privateKeys = new Map<string, KeyObject>();

// The KeyObject of a raw secret key, made once per key.
function cachedSigningKey(secretKey: Uint8Array): KeyObject {
  const id = Buffer.from(secretKey.buffer, secretKey.byteOffset, secretKey.byteLength).toString('base64');
  let key = privateKeys.get(id);
  if (!key) {
    if (privateKeys.size >= MAX_CACHED) privateKeys.clear();
    key = signingKeyObject(secretKey);
    privateKeys.set(id, key);
  }
  return key;
}

/** The private KeyObject of a 64-byte tweetnacl-layout secret key (seed then public key). */
export function signingKeyObject(secretKey: Uint8Array): KeyObject {
  return createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: base64url(secretKey.subarray(0, 32)),
      x: base64url(secretKey.subarray(32, 64)),
    },
    format: 'jwk',
  });
}

/** The public KeyObject of a raw 32-byte Ed25519 public key. */
export function verifyingKeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: base64url(publicKey) }, format: 'jwk' });
}

const base64url = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');

/**
 * Signs `message` with a 64-byte tweetnacl-layout secret key (seed then public key), or with the
 * KeyObject `signingKeyObject` made of one.
 * @returns the 64-byte detached signature, identical to `nacl.sign.detached`.
 */
export function signDetached(message: Uint8Array, secretKey: Uint8Array | KeyObject): Uint8Array {
  const key = secretKey instanceof KeyObject ? secretKey : cachedSigningKey(secretKey);
  return new Uint8Array(sign(null, message, key));
}

/**
 * Verifies a detached Ed25519 signature against a 32-byte public key (or the KeyObject
 * `verifyingKeyObject` made of one), like `nacl.sign.detached.verify`.
 */
export function verifyDetached(
  message: Uint8Array,
  signature: Uint8Array,
  publicKey: Uint8Array | KeyObject,
): boolean {
  const key = publicKey instanceof KeyObject ? publicKey : verifyingKeyObject(publicKey);
  return verify(null, message, key, signature);
}
