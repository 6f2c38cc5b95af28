// Session keys of protocol version 3. Each end makes a fresh X25519 key pair per connection and
// puts its public half in its signed handshake frame (the agent's enrol/hello, the controller's
// welcome), so the Ed25519 identity keys vouch for them. Both ends then derive the same two keys,
// one per direction, with HKDF-SHA256 over the X25519 shared secret; the ephemeral secrets are
// dropped once the keys are made, so a later theft of an identity key cannot recover them
// (forward secrecy).
import { createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, type KeyObject } from 'node:crypto';
import { decodeBase64Strict } from './base64.js';
import { decodePublicKey } from './key-pair.js';
import { ProtocolError } from './protocol-error.js';

/** Byte length of an X25519 public key. */
export const EPHEMERAL_KEY_BYTES = 32;

/** A connection's own X25519 key pair; `publicKey` (base64, 32 bytes) goes in the signed handshake. */
export interface EphemeralKeyPair {
  readonly publicKey: string;
  readonly privateKey: KeyObject;
}

/** The keys of one session: what this end MACs its frames with, and what it checks the peer's with. */
export interface SessionKeys {
  /** The session id (challenge nonce, base64) the keys belong to; every MAC covers its bytes. */
  readonly sid: string;
  /**
   * This end's send key (32 bytes), its receive key (32 bytes), then the session id's raw bytes, as a
   * latin1 string (one character per byte). A string, because a controller holds one per link for as
   * long as the link lives: two node:crypto KeyObjects cost ~2.7 KB per link, and a small Buffer is a
   * slice of Node's shared 8 KiB pool that keeps the whole slab alive; a short string is ~130 bytes
   * of heap. `sealFrame`/`openFrame` turn it back into bytes per frame.
   */
  readonly material: string;
  /**
   * Sessions whose ends both named `MAC_POLY1305_FEATURE`: this end's send key then its receive key
   * (32 bytes each, latin1 as `material`) for the Poly1305 MAC of frames over the one-shot size.
   * Keys of their own (another HKDF info), so no key serves two MACs.
   */
  readonly poly1305?: string;
}

/** Byte length of each direction's MAC key in `SessionKeys.material`. */
export const MAC_KEY_BYTES = 32;

/** Makes a fresh X25519 key pair for one connection. */
export function generateEphemeralKeyPair(): EphemeralKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return { publicKey: Buffer.from(x, 'base64url').toString('base64'), privateKey };
}

export interface DeriveOptions {
  /** Which end this is: it sends with its own direction's key and receives with the other's. */
  role: 'agent' | 'controller';
  /** The session id (challenge nonce). */
  sid: string;
  /** This end's ephemeral key pair. */
  own: EphemeralKeyPair;
  /** The peer's ephemeral public key, as read from its verified handshake frame. */
  peerPublicKey: string;
  /** The agent's and the controller's Ed25519 identity public keys (base64), pinned on both ends. */
  agentKey: string;
  controllerKey: string;
  /** Both ends named `MAC_POLY1305_FEATURE`: derive the Poly1305 keys too. */
  poly1305?: boolean;
}

/**
 * The two MAC keys of a session. The HKDF salt is the session id and its info names the direction,
 * both identity keys and both ephemeral keys, so keys of one session, one pair of ends or one
 * direction are never those of another.
 * @throws ProtocolError `BAD_KEY` for a malformed or low-order peer key (a shared secret of zeros).
 */
export function deriveSessionKeys(options: DeriveOptions): SessionKeys {
  const peer = decodeEphemeralKey(options.peerPublicKey);
  let shared: Buffer;
  try {
    shared = diffieHellman({ privateKey: options.own.privateKey, publicKey: peer });
  } catch (err) {
    throw new ProtocolError('BAD_KEY', 'ephemeral key agreement failed', { cause: err });
  }
  if (shared.every((byte) => byte === 0)) throw new ProtocolError('BAD_KEY', 'ephemeral key of low order');
  const sidBytes = Buffer.from(decodeBase64Strict(options.sid) ?? Buffer.from(options.sid, 'utf8'));
  const [agentEphemeral, controllerEphemeral] =
    options.role === 'agent'
      ? [options.own.publicKey, options.peerPublicKey]
      : [options.peerPublicKey, options.own.publicKey];
  const context = Buffer.concat([
    decodePublicKey(options.agentKey),
    decodePublicKey(options.controllerKey),
    decodeEphemeralBytes(agentEphemeral),
    decodeEphemeralBytes(controllerEphemeral),
  ]);
  const key = (direction: string): Uint8Array =>
    new Uint8Array(
      hkdfSync(
        'sha256',
        shared,
        sidBytes,
        Buffer.concat([Buffer.from(`ticketnet agent link v3 ${direction}`), context]),
        MAC_KEY_BYTES,
      ),
    );
  const toController = key('agent->controller');
  const toAgent = key('controller->agent');
  const material = Buffer.concat([
    options.role === 'agent' ? toController : toAgent,
    options.role === 'agent' ? toAgent : toController,
    sidBytes,
  ]);
  const poly1305 = options.poly1305
    ? {
        poly1305: Buffer.concat(
          options.role === 'agent'
            ? [key('poly1305 agent->controller'), key('poly1305 controller->agent')]
            : [key('poly1305 controller->agent'), key('poly1305 agent->controller')],
        ).toString('latin1'),
      }
    : {};
  return { sid: options.sid, material: material.toString('latin1'), ...poly1305 };
}

function decodeEphemeralBytes(publicKey: string): Uint8Array {
  const bytes = decodeBase64Strict(publicKey);
  if (bytes === undefined || bytes.length !== EPHEMERAL_KEY_BYTES) {
    throw new ProtocolError('BAD_KEY', `not a base64 X25519 public key of ${EPHEMERAL_KEY_BYTES} bytes`);
  }
  return bytes;
}

function decodeEphemeralKey(publicKey: string): KeyObject {
  const x = Buffer.from(decodeEphemeralBytes(publicKey)).toString('base64url');
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' });
  } catch (err) {
    throw new ProtocolError('BAD_KEY', 'malformed X25519 public key', { cause: err });
  }
}
