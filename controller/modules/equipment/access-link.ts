// The signed per-device link: `st` = base64url(JSON claims) "." base64url(HMAC-SHA256). The claims
// name the device, its tenant, the host the link is for, when it expires and what the token is (a
// link, or the session cookie opening one sets); a token is refused when altered, expired, opened
// on another host, or used as the other kind (a cookie lives 30 minutes, a link 300 s). The host is one per device (a sub-domain of
// `TICKETNET_EQUIPMENT_DEVICE_DOMAIN`): embedded web interfaces use absolute links, which a path
// prefix would break.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a link from `access-session` may be opened. */
export const ACCESS_LINK_TTL_SECONDS = 300;
/** How long the cookie set by opening a link keeps the interface usable. */
export const ACCESS_COOKIE_TTL_SECONDS = 30 * 60;
export const ACCESS_COOKIE = 'tn_device_access';

export interface AccessClaims {
  /** Device id. */
  d: string;
  /** Tenant. */
  c: string;
  /** Host the link is for, lower case. */
  h: string;
  /** Expiry, epoch seconds. */
  e: number;
  /** `link` (the `st` of `access-session`) or `session` (the cookie it sets). */
  k: AccessKind;
}

export type AccessKind = 'link' | 'session';

export const deviceHost = (deviceId: string, domain: string): string => `${deviceId}.${domain}`.toLowerCase();

export function signAccess(claims: AccessClaims, key: string): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const mac = createHmac('sha256', key).update(payload).digest('base64url');
  return `${payload}.${mac}`;
}

/** The claims of a valid token of `kind` for `host` at `nowSeconds`; undefined for anything else. */
export function verifyAccess(
  token: string,
  key: string,
  host: string,
  nowSeconds: number,
  kind: AccessKind,
): AccessClaims | undefined {
  const [payload, mac, extra] = token.split('.');
  if (!payload || !mac || extra !== undefined) return undefined;
  // Compared as text: base64url decoding ignores a last character's spare bits, so comparing the
  // decoded bytes would accept altered spellings of one MAC.
  const expected = Buffer.from(createHmac('sha256', key).update(payload).digest('base64url'));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let claims: AccessClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as AccessClaims;
  } catch {
    return undefined;
  }
  if (typeof claims.e !== 'number' || claims.e <= nowSeconds) return undefined;
  if (typeof claims.h !== 'string' || claims.h !== host.toLowerCase()) return undefined;
  if (typeof claims.d !== 'string' || typeof claims.c !== 'string') return undefined;
  if (claims.k !== kind) return undefined;
  return claims;
}

export interface AccessSessionOptions {
  domain: string | undefined;
  scheme: 'http' | 'https';
  key: string;
}

/** The answer of `access-session` for a device the caller may open now. */
export function accessSession(
  deviceId: string,
  clientId: string,
  nowSeconds: number,
  o: AccessSessionOptions,
) {
  const host = deviceHost(deviceId, o.domain ?? '');
  const st = signAccess(
    { d: deviceId, c: clientId, h: host, e: nowSeconds + ACCESS_LINK_TTL_SECONDS, k: 'link' },
    o.key,
  );
  const path = `/?st=${st}`;
  return {
    access_url: `${o.scheme}://${host}${path}`,
    access_path: path,
    ttl_seconds: ACCESS_LINK_TTL_SECONDS,
  };
}
