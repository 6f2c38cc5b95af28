import { createHash } from 'node:crypto';
import nacl from 'tweetnacl';
import { decodeBase64Strict, encodeBase64 } from './base64.js';
import { ProtocolError } from './protocol-error.js';

/** Byte length of an Ed25519 public key. */
export const PUBLIC_KEY_BYTES = nacl.sign.publicKeyLength;
/** Byte length of a tweetnacl Ed25519 secret key (32-byte seed followed by the public key). */
export const SECRET_KEY_BYTES = nacl.sign.secretKeyLength;

/** An Ed25519 key pair as stored and exchanged: both halves standard base64. */
export interface KeyPair {
  /** 32 bytes, base64: what the peer pins and what goes in `agent_key` / `controller_key`. */
  publicKey: string;
  /** 64 bytes, base64 (tweetnacl layout: seed then public key). Never leaves the machine that made it. */
  secretKey: string;
}

/** Makes a fresh Ed25519 key pair from the platform CSPRNG. */
export function generateKeyPair(): KeyPair {
  const pair = nacl.sign.keyPair();
  return { publicKey: encodeBase64(pair.publicKey), secretKey: encodeBase64(pair.secretKey) };
}

/** The base64 public key that belongs to a base64 secret key, e.g. to check a key file on start. */
export function derivePublicKey(secretKey: string): string {
  return encodeBase64(nacl.sign.keyPair.fromSecretKey(decodeSecretKey(secretKey)).publicKey);
}

/**
 * Short display form of a public key for logs and the CLI: the first 16 hex digits (64 bits) of
 * the SHA-256 of the raw key bytes. For people comparing keys by eye, never for authentication.
 * @throws ProtocolError `BAD_KEY` if `publicKey` is not a base64 32-byte key.
 */
export function publicKeyFingerprint(publicKey: string): string {
  return createHash('sha256').update(decodePublicKey(publicKey)).digest('hex').slice(0, 16);
}

/**
 * Raw bytes of a base64 Ed25519 public key.
 * @throws ProtocolError `BAD_KEY` when it is not canonical base64 of 32 bytes.
 */
export function decodePublicKey(publicKey: string): Uint8Array {
  return decodeKey(publicKey, PUBLIC_KEY_BYTES, 'public');
}

/**
 * Raw bytes of a base64 tweetnacl secret key.
 * @throws ProtocolError `BAD_KEY` when it is not canonical base64 of 64 bytes.
 */
export function decodeSecretKey(secretKey: string): Uint8Array {
  return decodeKey(secretKey, SECRET_KEY_BYTES, 'secret');
}

function decodeKey(text: unknown, length: number, kind: string): Uint8Array {
  const bytes = typeof text === 'string' ? decodeBase64Strict(text) : undefined;
  if (bytes === undefined || bytes.length !== length) {
    // The key itself is never echoed: a secret key must not end up in a log line.
    throw new ProtocolError('BAD_KEY', `not a base64 Ed25519 ${kind} key of ${length} bytes`);
  }
  return bytes;
}
