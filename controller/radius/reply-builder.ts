// Encodes replies with the codec and signs them. Message-Authenticator is the first attribute of
// every reply (the BlastRADIUS mitigation, CVE-2024-3596: a forged reply cannot keep a valid
// HMAC), whatever the request carried.
import radius from 'radius';
import { splitGigawords } from '../modules/tickets/limits.js';
import type { Grant } from '../modules/tickets/ticket-rules.js';
import { MIKROTIK_VENDOR_ID } from './dictionary.js';
import { ATTR, CODE, allAttributes, signReply } from './packet-crypto.js';

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

/**
 * A signed reply to `request` (raw bytes of a verified request): Message-Authenticator first, the
 * given attributes, then the request's Proxy-State attributes echoed in order (RFC 2865 §5.33).
 */
export function encodeReply(code: string, request: Buffer, secret: string, attributes: Attribute[]): Buffer {
  const proxyStates = allAttributes(request, ATTR.PROXY_STATE).map((v): Attribute => [
    ATTR.PROXY_STATE,
    Buffer.from(v),
  ]);
  const reply = radius.encode({
    code,
    secret,
    identifier: request[1]!,
    attributes: [['Message-Authenticator', Buffer.alloc(16)], ...attributes, ...proxyStates],
    add_message_authenticator: false,
  });
  // An Accounting-Response to an Accounting-Request signs its Message-Authenticator over zeros.
  const zeroForMac = code === 'Accounting-Response' && request[0] === CODE.ACCOUNTING_REQUEST;
  return signReply(reply, request.subarray(4, 20), secret, zeroForMac);
}
