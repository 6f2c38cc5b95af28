// RADIUS packet integrity on raw bytes: the checks and signatures every request and reply needs,
// done here rather than through the codec because they run on every packet (the codec verifies a
// Message-Authenticator by re-encoding the whole packet, several times the cost of one HMAC).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

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

const md5 = (...parts: (Buffer | string)[]): Buffer => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** HMAC-MD5 of the packet with its Message-Authenticator zeroed and `authenticator` in the header (no copy). */
function computeMessageAuthenticator(
  packet: Buffer,
  valueAt: number,
  authenticator: Buffer,
  secret: string,
): Buffer {
  return createHmac('md5', secret)
    .update(packet.subarray(0, 4))
    .update(authenticator)
    .update(packet.subarray(20, valueAt))
    .update(ZERO_16)
    .update(packet.subarray(valueAt + 16))
    .digest();
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
  if (timingSafeEqual(sent, computeMessageAuthenticator(packet, at, requestAuth, secret))) return 'valid';
  if (packet[0] === CODE.ACCOUNTING_REQUEST) {
    if (timingSafeEqual(sent, computeMessageAuthenticator(packet, at, ZERO_16, secret))) return 'valid';
  }
  return 'invalid';
}

/** Accounting-Request authenticator: MD5(Code+ID+Length+16 zero octets+Attributes+Secret) (RFC 2866 §3). */
export function accountingAuthenticatorValid(packet: Buffer, secret: string): boolean {
  const expected = md5(packet.subarray(0, 4), ZERO_16, packet.subarray(20), secret);
  return timingSafeEqual(expected, packet.subarray(4, 20));
}

/** User-Password (RFC 2865 §5.2): undoes the MD5 stream over 16-octet blocks and strips the padding. */
export function decryptPap(hidden: Buffer, secret: string, requestAuthenticator: Buffer): Buffer | null {
  if (hidden.length < 16 || hidden.length > 128 || hidden.length % 16 !== 0) return null;
  const out = Buffer.alloc(hidden.length);
  let previous = requestAuthenticator;
  for (let i = 0; i < hidden.length; i += 16) {
    const b = md5(secret, previous);
    for (let j = 0; j < 16; j++) out[i + j] = hidden[i + j]! ^ b[j]!;
    previous = hidden.subarray(i, i + 16);
  }
  let end = out.length;
  while (end > 0 && out[end - 1] === 0) end--;
  return out.subarray(0, end);
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
  const expected = md5(chapPassword.subarray(0, 1), Buffer.from(password, 'utf8'), challenge);
  return timingSafeEqual(expected, chapPassword.subarray(1));
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
): Buffer {
  (zeroForMac ? ZERO_16 : requestAuthenticator).copy(reply, 4);
  const at = findAttribute(reply, ATTR.MESSAGE_AUTHENTICATOR);
  if (at >= 0) {
    reply.fill(0, at, at + 16);
    createHmac('md5', secret).update(reply).digest().copy(reply, at);
  }
  requestAuthenticator.copy(reply, 4);
  md5(reply, secret).copy(reply, 4);
  return reply;
}
