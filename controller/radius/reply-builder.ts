// Encodes replies with the codec and signs them. Message-Authenticator is the first attribute of
// every reply (the BlastRADIUS mitigation, CVE-2024-3596: a forged reply cannot keep a valid
// HMAC), whatever the request carried.
//
// The codec encodes each distinct list of reply attributes once; replies reuse those bytes. A
// reply is then a header, the Message-Authenticator, the cached attributes and the request's
// Proxy-State copied as they came, signed in place: on the hot path, re-encoding the same
// attributes through the dictionary cost more than both MD5s of the signature.
import radius from 'radius';
import type { Grant } from '../modules/tickets/index.js';
import { MIKROTIK_VENDOR_ID } from './dictionary.js';
import { splitGigawords } from './gigawords.js';
import { ATTR, CODE, HEADER_LENGTH, MAX_PACKET_LENGTH, signReply } from './packet-crypto.js';

type Attribute = [string | number, ...unknown[]];

const vsa = (name: string, value: unknown): Attribute => [
  'Vendor-Specific',
  MIKROTIK_VENDOR_ID,
  [[name, value]],
];

/** The attributes granting a session: one MikroTik VSA per value (some NAS read one per VSA). */
export function grantAttributes(grant: Grant, interimSeconds: number): Attribute[] {
  const out: Attribute[] = [];
  if (grant.rateLimit) out.push(vsa('Mikrotik-Rate-Limit', grant.rateLimit));
  if (grant.sessionTimeout !== null) out.push(['Session-Timeout', grant.sessionTimeout]);
  if (grant.totalLimitBytes !== null) {
    const { octets, gigawords } = splitGigawords(grant.totalLimitBytes);
    out.push(vsa('Mikrotik-Total-Limit', octets));
    if (gigawords > 0) out.push(vsa('Mikrotik-Total-Limit-Gigawords', gigawords));
  }
  out.push(['Acct-Interim-Interval', interimSeconds]);
  return out;
}

const grants = new Map<string, Buffer>();

/** `grantAttributes` encoded, cached by the grant's values (replies of one profile share them). */
export function grantBytes(grant: Grant, interimSeconds: number): Buffer {
  const key = `${grant.rateLimit ?? ''}|${grant.sessionTimeout}|${grant.totalLimitBytes}|${interimSeconds}`;
  let bytes = grants.get(key);
  if (bytes === undefined) {
    bytes = attributeBytes(grantAttributes(grant, interimSeconds));
    if (grants.size >= MAX_CACHED_LISTS) grants.clear();
    grants.set(key, bytes);
  }
  return bytes;
}

export type ReplyCode = 'Access-Accept' | 'Access-Reject' | 'Accounting-Response';

const REPLY_CODE: Record<ReplyCode, number> = {
  'Access-Accept': CODE.ACCESS_ACCEPT,
  'Access-Reject': CODE.ACCESS_REJECT,
  'Accounting-Response': CODE.ACCOUNTING_RESPONSE,
};

const MA_LENGTH = 18;
const EMPTY = Buffer.alloc(0);
// Distinct attribute lists are few (a profile's limits, the quota left of a ticket): the cache is
// dropped whole when it fills, which only costs encoding them again.
const MAX_CACHED_LISTS = 10_000;
const encoded = new Map<string, Buffer>();

/**
 * The wire bytes of an attribute list, encoded by the codec on first use. Only for attributes
 * whose encoding depends on nothing but their values: replies carry no encrypted attribute
 * (User-Password, Tunnel-Password), which would depend on the secret and the authenticator.
 */
export function attributeBytes(attributes: readonly Attribute[]): Buffer {
  if (attributes.length === 0) return EMPTY;
  const key = JSON.stringify(attributes);
  let bytes = encoded.get(key);
  if (bytes === undefined) {
    const packet = radius.encode({
      code: 'Access-Accept',
      secret: 'unused',
      identifier: 0,
      attributes: attributes as Attribute[],
      add_message_authenticator: false,
    });
    bytes = Buffer.from(packet.subarray(HEADER_LENGTH));
    if (encoded.size >= MAX_CACHED_LISTS) encoded.clear();
    encoded.set(key, bytes);
  }
  return bytes;
}

/**
 * A signed reply to `request` (raw bytes of a verified request): Message-Authenticator first, the
 * given attributes, then the request's Proxy-State attributes echoed in order (RFC 2865 §5.33).
 */
export function encodeReply(
  code: ReplyCode,
  request: Buffer,
  secret: string,
  attributes: readonly Attribute[] | Buffer,
): Buffer {
  const body = Buffer.isBuffer(attributes) ? attributes : attributeBytes(attributes);
  let proxyBytes = 0;
  for (let at = HEADER_LENGTH; at < request.length; at += request[at + 1]!) {
    if (request[at] === ATTR.PROXY_STATE) proxyBytes += request[at + 1]!;
  }
  const length = HEADER_LENGTH + MA_LENGTH + body.length + proxyBytes;
  if (length > MAX_PACKET_LENGTH) throw new Error(`reply of ${length} bytes is over the RADIUS maximum`);
  // Every byte is written below (the authenticator by signReply), so no zero fill is needed.
  const reply = Buffer.allocUnsafe(length);
  reply[0] = REPLY_CODE[code];
  reply[1] = request[1]!;
  reply.writeUInt16BE(length, 2);
  reply[HEADER_LENGTH] = ATTR.MESSAGE_AUTHENTICATOR;
  reply[HEADER_LENGTH + 1] = MA_LENGTH;
  reply.fill(0, HEADER_LENGTH + 2, HEADER_LENGTH + MA_LENGTH);
  let end = HEADER_LENGTH + MA_LENGTH + body.copy(reply, HEADER_LENGTH + MA_LENGTH);
  if (proxyBytes > 0) {
    for (let at = HEADER_LENGTH; at < request.length; at += request[at + 1]!) {
      if (request[at] === ATTR.PROXY_STATE) end += request.copy(reply, end, at, at + request[at + 1]!);
    }
  }
  // An Accounting-Response to an Accounting-Request signs its Message-Authenticator over zeros.
  const zeroForMac = code === 'Accounting-Response' && request[0] === CODE.ACCOUNTING_REQUEST;
  return signReply(reply, request.subarray(4, 20), secret, zeroForMac, HEADER_LENGTH + 2);
}
