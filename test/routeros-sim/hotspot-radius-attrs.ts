// The attributes a MikroTik hotspot puts in its RADIUS requests, and what it
// takes from an Access-Accept. Shapes follow captures of RouterOS hotspots
// (Called-Station-Id = hotspot server name, Calling-Station-Id = client MAC,
// Acct-Session-Id = NAS-Port in hex...).
import { createHash, randomBytes } from 'node:crypto';
import { MIKROTIK_VENDOR_ID } from './radius-dictionary.js';

/** Everything about a session that goes into its RADIUS packets. */
export interface SessionIdentity {
  user: string;
  mac: string;
  ip: string;
  /** Hotspot server name (Called-Station-Id). */
  server: string;
  /** Interface of the hotspot server (NAS-Port-Id). */
  interfaceName: string;
  nasPort: number;
  acctSessionId: string;
  nasIdentifier: string;
  nasIpAddress: string;
  nasPortType: number;
  /** radius-mac-format of the server profile. */
  macFormat: string;
}

export interface SessionCounters {
  uptime: number;
  bytesIn: number;
  bytesOut: number;
  packetsIn: number;
  packetsOut: number;
}

export type TerminateCause =
  | 'User-Request'
  | 'Lost-Carrier'
  | 'Idle-Timeout'
  | 'Session-Timeout'
  | 'Admin-Reset'
  | 'NAS-Request'
  | 'NAS-Reboot';

type Attribute = [string, unknown] | [string, number, Array<[string, unknown]>];

const GIGA = 2 ** 32;

const NAS_PORT_TYPES: Readonly<Record<string, number>> = {
  async: 0,
  sync: 1,
  'isdn-sync': 2,
  virtual: 5,
  ethernet: 15,
  xdsl: 16,
  cable: 17,
  'wireless-802.11': 19,
};

export function nasPortType(profileValue: string | undefined): number {
  if (profileValue && /^\d+$/.test(profileValue)) return Number(profileValue);
  return NAS_PORT_TYPES[profileValue ?? ''] ?? 19;
}

/** Writes a MAC the way `radius-mac-format` says (XX:XX:XX:XX:XX:XX, xx-xx-..., XXXXXXXXXXXX...). */
export function formatMac(mac: string, format: string): string {
  const digits = mac.replace(/[^0-9A-Fa-f]/g, '');
  let i = 0;
  let out = '';
  for (const ch of format) {
    if (ch === 'X' || ch === 'x') {
      const d = digits[i++] ?? '0';
      out += ch === 'X' ? d.toUpperCase() : d.toLowerCase();
    } else out += ch;
  }
  return out;
}

function common(s: SessionIdentity): Attribute[] {
  return [
    ['NAS-Port-Type', s.nasPortType],
    ['Calling-Station-Id', formatMac(s.mac, s.macFormat)],
    ['Called-Station-Id', s.server],
    ['NAS-Port-Id', s.interfaceName],
    ['User-Name', s.user],
    ['NAS-Port', s.nasPort],
    ['Acct-Session-Id', s.acctSessionId],
    ['Framed-IP-Address', s.ip],
    ['Vendor-Specific', MIKROTIK_VENDOR_ID, [['Mikrotik-Host-IP', s.ip]]],
  ];
}

export type Credentials = { method: 'pap'; password: string } | { method: 'chap'; password: string };

/** Access-Request; with CHAP the hotspot sends CHAP-Password and its own CHAP-Challenge. */
export function accessRequest(s: SessionIdentity, credentials: Credentials): Attribute[] {
  const auth: Attribute[] = [];
  if (credentials.method === 'pap') {
    auth.push(['User-Password', credentials.password]);
  } else {
    const challenge = randomBytes(16);
    const ident = randomBytes(1);
    const hash = createHash('md5')
      .update(ident)
      .update(credentials.password, 'latin1')
      .update(challenge)
      .digest();
    auth.push(['CHAP-Password', Buffer.concat([ident, hash])], ['CHAP-Challenge', challenge]);
  }
  return [
    ...common(s),
    ...auth,
    ['Service-Type', 'Login-User'],
    ['NAS-Identifier', s.nasIdentifier],
    ['NAS-IP-Address', s.nasIpAddress],
  ];
}

export type AcctStatus = 'Start' | 'Interim-Update' | 'Stop';

/** Accounting-Request; counters past 4 GiB carry their high part in the Gigawords attributes. */
export function accountingRequest(
  s: SessionIdentity,
  status: AcctStatus,
  counters: SessionCounters,
  extra: { classAttr?: Buffer; cause?: TerminateCause; now: Date },
): Attribute[] {
  const attrs: Attribute[] = [['Acct-Status-Type', status], ...common(s)];
  if (extra.classAttr) attrs.push(['Class', extra.classAttr]);
  attrs.push(
    ['Acct-Authentic', 'RADIUS'],
    ['Acct-Delay-Time', 0],
    ['Event-Timestamp', extra.now],
    ['NAS-Identifier', s.nasIdentifier],
    ['NAS-IP-Address', s.nasIpAddress],
  );
  if (status !== 'Start') {
    attrs.push(
      ['Acct-Session-Time', Math.floor(counters.uptime)],
      ['Acct-Input-Octets', counters.bytesIn % GIGA],
      ['Acct-Input-Gigawords', Math.floor(counters.bytesIn / GIGA)],
      ['Acct-Input-Packets', counters.packetsIn % GIGA],
      ['Acct-Output-Octets', counters.bytesOut % GIGA],
      ['Acct-Output-Gigawords', Math.floor(counters.bytesOut / GIGA)],
      ['Acct-Output-Packets', counters.packetsOut % GIGA],
    );
  }
  if (status === 'Stop') attrs.push(['Acct-Terminate-Cause', extra.cause ?? 'User-Request']);
  return attrs;
}

/** What an Access-Accept sets for the session. */
export interface ReplyLimits {
  sessionTimeout?: number;
  idleTimeout?: number;
  interimInterval?: number;
  rateLimit?: string;
  limitBytesIn?: number;
  limitBytesOut?: number;
  limitBytesTotal?: number;
  addressList?: string;
  group?: string;
  classAttr?: Buffer;
  replyMessage?: string;
}

export function replyLimits(attributes: Record<string, unknown>): ReplyLimits {
  const vsa = (attributes['Vendor-Specific'] ?? {}) as Record<string, unknown>;
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const wide = (low: unknown, high: unknown): number | undefined => {
    if (num(low) === undefined && num(high) === undefined) return undefined;
    return (num(high) ?? 0) * GIGA + (num(low) ?? 0);
  };
  const out: ReplyLimits = {};
  const set = <K extends keyof ReplyLimits>(key: K, value: ReplyLimits[K] | undefined): void => {
    if (value !== undefined) out[key] = value;
  };
  set('sessionTimeout', num(attributes['Session-Timeout']));
  set('idleTimeout', num(attributes['Idle-Timeout']));
  set('interimInterval', num(attributes['Acct-Interim-Interval']));
  set('rateLimit', str(vsa['Mikrotik-Rate-Limit']));
  set('limitBytesIn', wide(vsa['Mikrotik-Recv-Limit'], vsa['Mikrotik-Recv-Limit-Gigawords']));
  set('limitBytesOut', wide(vsa['Mikrotik-Xmit-Limit'], vsa['Mikrotik-Xmit-Limit-Gigawords']));
  set('limitBytesTotal', wide(vsa['Mikrotik-Total-Limit'], vsa['Mikrotik-Total-Limit-Gigawords']));
  set('addressList', str(vsa['Mikrotik-Address-List']));
  set('group', str(vsa['Mikrotik-Group']));
  const cls = attributes.Class;
  if (Buffer.isBuffer(cls)) out.classAttr = cls;
  const msg = attributes['Reply-Message'];
  set('replyMessage', Array.isArray(msg) ? msg.map(String).join('\n') : str(msg));
  return out;
}

/** Reply attributes with the vendor ones at top level and octets as hex, for assertions. */
export function flattenAttributes(attributes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attributes)) {
    if (k === 'Message-Authenticator') continue;
    if (k === 'Vendor-Specific' && v && typeof v === 'object' && !Buffer.isBuffer(v)) Object.assign(out, v);
    else out[k] = Buffer.isBuffer(v) ? v.toString('hex') : v;
  }
  return out;
}
