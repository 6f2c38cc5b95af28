// RADIUS packet integrity on raw bytes: the checks and signatures every request and reply needs,
// done here rather than through the codec because they run on every packet (the codec verifies a
// Message-Authenticator by re-encoding the whole packet, several times the cost of one HMAC).
import { hash, timingSafeEqual } from 'node:crypto';

export const HEADER_LENGTH = 20;
export const MAX_PACKET_LENGTH = 4096;
export const ATTR = {
  USER_NAME: 1,
  USER_PASSWORD: 2,
  CHAP_PASSWORD: 3,
  PROXY_STATE: 33,
  CHAP_CHALLENGE: 60,
  MESSAGE_AUTHENTICATOR: 80,
} as const;
export const CODE = {
  ACCESS_REQUEST: 1,
  ACCESS_ACCEPT: 2,
  ACCESS_REJECT: 3,
  ACCOUNTING_REQUEST: 4,
  ACCOUNTING_RESPONSE: 5,
  STATUS_SERVER: 12,
} as const;

const ZERO_16 = Buffer.alloc(16);

export interface PacketHeader {
  code: number;
  identifier: number;
  length: number;
}

/**
 * The header of a well-formed packet (RFC 2865 §3: 20 ≤ length ≤ 4096, bytes past the length are
 * padding, every attribute inside the length), or null. Returns the packet cut to its length.
 */
export function readPacket(msg: Buffer): { header: PacketHeader; packet: Buffer } | null {
  if (msg.length < HEADER_LENGTH) return null;
  const length = msg.readUInt16BE(2);
  if (length < HEADER_LENGTH || length > MAX_PACKET_LENGTH || length > msg.length) return null;
  for (let at = HEADER_LENGTH; at < length;) {
    if (at + 2 > length) return null;
    const len = msg[at + 1]!;
    if (len < 2 || at + len > length) return null;
    at += len;
  }
  return { header: { code: msg[0]!, identifier: msg[1]!, length }, packet: msg.subarray(0, length) };
}

/** Offset of the value of the first attribute of a type, or -1 (the packet is known well-formed). */
export function findAttribute(packet: Buffer, type: number): number {
  for (let at = HEADER_LENGTH; at < packet.length; at += packet[at + 1]!) {
    if (packet[at] === type) return at + 2;
  }
  return -1;
}

/** Every value of an attribute type, in order (Proxy-State is echoed in replies). */
export function allAttributes(packet: Buffer, type: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = HEADER_LENGTH; at < packet.length; at += packet[at + 1]!) {
    if (packet[at] === type) out.push(packet.subarray(at + 2, at + packet[at + 1]!));
  }
  return out;
}

// Every digest is one-shot (`crypto.hash`) over bytes laid out in a scratch buffer, and comes back
// as a 16-character binary string. A Hash or Hmac object per digest was a C++ object behind a weak
// handle and its digest a fresh ArrayBuffer: at four digests per request, freeing those made most
// of every young-generation GC pause, which is the request latency tail. Everything here is
// synchronous, so one scratch buffer serves every call.
const SCRATCH = Buffer.alloc(64 + 2 * MAX_PACKET_LENGTH);
const MD5_BLOCK = 64;

/** MD5 of the scratch buffer's first `length` bytes, as a binary string. */
const md5Scratch = (length: number): string => hash('md5', SCRATCH.subarray(0, length), 'binary');

/** Copies `parts` into the scratch buffer from `at`; returns the offset after them. */
function lay(at: number, ...parts: (Buffer | string)[]): number {
  for (const p of parts) at += typeof p === 'string' ? SCRATCH.write(p, at, 'binary') : p.copy(SCRATCH, at);
  return at;
}

/** The 16 bytes of a binary-string digest equal `bytes` (no early exit). */
function digestEquals(digest: string, bytes: Buffer): boolean {
  if (bytes.length !== 16) return false;
  let diff = 0;
  for (let i = 0; i < 16; i++) diff |= digest.charCodeAt(i) ^ bytes[i]!;
  return diff === 0;
}

interface SecretKey {
  /** The secret's UTF-8 bytes, as a binary string (what MD5 constructions append). */
  bytes: string;
  /** HMAC-MD5 key pads (RFC 2104): the key, hashed first when over 64 bytes, XOR 0x36 / 0x5c. */
  ipad: Buffer;
  opad: Buffer;
}

const keys = new Map<string, SecretKey>();

function keyOf(secret: string): SecretKey {
  let key = keys.get(secret);
  if (!key) {
    let k = Buffer.from(secret, 'utf8');
    if (k.length > MD5_BLOCK) k = hash('md5', k, 'buffer');
    const ipad = Buffer.alloc(MD5_BLOCK, 0x36);
    const opad = Buffer.alloc(MD5_BLOCK, 0x5c);
    for (let i = 0; i < k.length; i++) {
      ipad[i]! ^= k[i]!;
      opad[i]! ^= k[i]!;
    }
    key = { bytes: Buffer.from(secret, 'utf8').toString('binary'), ipad, opad };
    if (keys.size >= 10_000) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** HMAC-MD5 of the `length` bytes at scratch offset 64 (the inner pad goes before them). */
function hmacScratch(key: SecretKey, length: number): string {
  key.ipad.copy(SCRATCH, 0);
  const inner = md5Scratch(MD5_BLOCK + length);
  key.opad.copy(SCRATCH, 0);
  return md5Scratch(lay(MD5_BLOCK, inner));
}

/** HMAC-MD5 of the packet with its Message-Authenticator zeroed and `authenticator` in the header. */
function computeMessageAuthenticator(
  packet: Buffer,
  valueAt: number,
  authenticator: Buffer,
  secret: string,
): string {
  const end = lay(
    MD5_BLOCK,
    packet.subarray(0, 4),
    authenticator,
    packet.subarray(20, valueAt),
    ZERO_16,
    packet.subarray(valueAt + 16),
  );
  return hmacScratch(keyOf(secret), end - MD5_BLOCK);
}

/**
 * Checks a request's Message-Authenticator (RFC 3579 §3.2). Access-Request and Status-Server sign
 * over their Request Authenticator; an Accounting-Request over a zero authenticator (RFC 5080,
 * FreeRADIUS), some clients over the real one, so both are accepted there.
 * Returns 'absent' when the packet carries none.
 */
export function checkMessageAuthenticator(packet: Buffer, secret: string): 'valid' | 'invalid' | 'absent' {
  const at = findAttribute(packet, ATTR.MESSAGE_AUTHENTICATOR);
  if (at < 0) return 'absent';
  if (packet[at - 1] !== 18) return 'invalid';
  const sent = packet.subarray(at, at + 16);
  const requestAuth = packet.subarray(4, 20);
  if (digestEquals(computeMessageAuthenticator(packet, at, requestAuth, secret), sent)) return 'valid';
  if (packet[0] === CODE.ACCOUNTING_REQUEST) {
    if (digestEquals(computeMessageAuthenticator(packet, at, ZERO_16, secret), sent)) return 'valid';
  }
  return 'invalid';
}

/** Accounting-Request authenticator: MD5(Code+ID+Length+16 zero octets+Attributes+Secret) (RFC 2866 §3). */
export function accountingAuthenticatorValid(packet: Buffer, secret: string): boolean {
  const end = lay(0, packet.subarray(0, 4), ZERO_16, packet.subarray(20), keyOf(secret).bytes);
  return digestEquals(md5Scratch(end), packet.subarray(4, 20));
}

/**
 * Undoes the User-Password MD5 stream (RFC 2865 §5.2) into `out` (as long as `hidden`); returns
 * the length of the password (the zero padding stripped), or -1 when `hidden` is malformed.
 */
function unhidePap(hidden: Buffer, secret: string, requestAuthenticator: Buffer, out: Buffer): number {
  if (hidden.length < 16 || hidden.length > 128 || hidden.length % 16 !== 0) return -1;
  const { bytes } = keyOf(secret);
  let previous = requestAuthenticator;
  for (let i = 0; i < hidden.length; i += 16) {
    const b = md5Scratch(lay(0, bytes, previous));
    for (let j = 0; j < 16; j++) out[i + j] = hidden[i + j]! ^ b.charCodeAt(j);
    previous = hidden.subarray(i, i + 16);
  }
  let end = hidden.length;
  while (end > 0 && out[end - 1] === 0) end--;
  return end;
}

/** User-Password (RFC 2865 §5.2): undoes the MD5 stream over 16-octet blocks and strips the padding. */
export function decryptPap(hidden: Buffer, secret: string, requestAuthenticator: Buffer): Buffer | null {
  const out = Buffer.alloc(hidden.length);
  const length = unhidePap(hidden, secret, requestAuthenticator, out);
  return length < 0 ? null : out.subarray(0, length);
}

// The clear password of the request in work and the stored one, compared in place (hot path).
const PAP_CLEAR = Buffer.alloc(128);
const PAP_STORED = Buffer.alloc(4 * 128);

/** The User-Password decrypts to `expected` (constant time for passwords of equal length). */
export function papMatches(
  hidden: Buffer,
  secret: string,
  requestAuthenticator: Buffer,
  expected: string,
): boolean {
  const length = unhidePap(hidden, secret, requestAuthenticator, PAP_CLEAR);
  if (length < 0 || Buffer.byteLength(expected, 'utf8') !== length) return false;
  PAP_STORED.write(expected, 0, 'utf8');
  return timingSafeEqual(PAP_CLEAR.subarray(0, length), PAP_STORED.subarray(0, length));
}

/** Constant-time comparison of a received password with the stored one. */
export function passwordMatches(received: Buffer, expected: string): boolean {
  const want = Buffer.from(expected, 'utf8');
  return received.length === want.length && timingSafeEqual(received, want);
}

/**
 * CHAP (RFC 1994 as carried by RFC 2865 §5.3): CHAP-Password is the CHAP identifier then
 * MD5(identifier + password + challenge); the challenge is CHAP-Challenge or, absent, the
 * Request Authenticator.
 */
export function chapMatches(chapPassword: Buffer, challenge: Buffer, password: string): boolean {
  if (chapPassword.length !== 17) return false;
  const at = lay(0, chapPassword.subarray(0, 1));
  const end = lay(at + SCRATCH.write(password, at, 'utf8'), challenge);
  return digestEquals(md5Scratch(end), chapPassword.subarray(1));
}

/**
 * Signs an encoded reply in place: Message-Authenticator first, then the Response Authenticator
 * MD5(Code+ID+Length+RequestAuth+Attributes+Secret) over the reply including it. The HMAC-MD5 of
 * the Message-Authenticator is computed with the Request Authenticator in the header for Access
 * replies (RFC 3579 §3.2) and with zeros for an Accounting-Response, as FreeRADIUS computes and
 * checks it (radclient refuses the reply otherwise).
 */
export function signReply(
  reply: Buffer,
  requestAuthenticator: Buffer,
  secret: string,
  zeroForMac = false,
  /** Offset of the Message-Authenticator's value when the caller knows it. */
  at = findAttribute(reply, ATTR.MESSAGE_AUTHENTICATOR),
): Buffer {
  const key = keyOf(secret);
  (zeroForMac ? ZERO_16 : requestAuthenticator).copy(reply, 4);
  if (at >= 0) {
    reply.fill(0, at, at + 16);
    reply.write(hmacScratch(key, lay(MD5_BLOCK, reply) - MD5_BLOCK), at, 'binary');
  }
  requestAuthenticator.copy(reply, 4);
  reply.write(md5Scratch(lay(0, reply, key.bytes)), 4, 'binary');
  return reply;
}
