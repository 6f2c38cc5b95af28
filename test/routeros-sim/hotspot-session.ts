// One logged-in hotspot client: what /ip/hotspot/active prints for it, and
// whether its limits have run out.
import type { RadiusTarget } from './radius-exchange.js';
import type {
  ReplyLimits,
  SessionCounters,
  SessionIdentity,
  TerminateCause,
} from './hotspot-radius-attrs.js';
import { formatDuration } from './ros-format.js';

export interface HotspotSession {
  activeId: number;
  identity: SessionIdentity;
  /** Authenticated by RADIUS (else by the local user table). */
  radius: boolean;
  loginBy: 'http-chap' | 'http-pap';
  /** Accounting goes to this server (the one that accepted the login). */
  accounting?: RadiusTarget;
  limits: ReplyLimits;
  counters: SessionCounters;
  /** /ip/hotspot/user record of a local login, whose counters grow with the session. */
  localUserId?: number;
  /** Dynamic /queue/simple entry applying the rate limit. */
  queueId?: number;
  /** Seconds between Interim-Updates (0: none). */
  interimSeconds: number;
  timer?: NodeJS.Timeout;
}

export function activeEntryProps(s: HotspotSession, keepaliveTimeout: string): Record<string, string> {
  const { identity, counters, limits } = s;
  const props: Record<string, string> = {
    server: identity.server,
    user: identity.user,
    domain: '',
    address: identity.ip,
    'mac-address': identity.mac.toUpperCase(),
    'login-by': s.loginBy,
    uptime: formatDuration(counters.uptime),
  };
  if (limits.sessionTimeout !== undefined)
    props['session-time-left'] = formatDuration(Math.max(0, limits.sessionTimeout - counters.uptime));
  Object.assign(props, {
    'idle-time': '0s',
    ...(limits.idleTimeout !== undefined ? { 'idle-timeout': formatDuration(limits.idleTimeout) } : {}),
    'keepalive-timeout': keepaliveTimeout,
    'bytes-in': String(counters.bytesIn),
    'bytes-out': String(counters.bytesOut),
    'packets-in': String(counters.packetsIn),
    'packets-out': String(counters.packetsOut),
  });
  if (limits.limitBytesIn !== undefined) props['limit-bytes-in'] = String(limits.limitBytesIn);
  if (limits.limitBytesOut !== undefined) props['limit-bytes-out'] = String(limits.limitBytesOut);
  if (limits.limitBytesTotal !== undefined) props['limit-bytes-total'] = String(limits.limitBytesTotal);
  props.radius = String(s.radius);
  props.blocked = 'false';
  return props;
}

/**
 * Why the session must end now, if it must. Uptime runs out as
 * Session-Timeout; a traffic limit as NAS-Request (sim assumption: a server
 * should decide exhaustion from the counters, not from the cause).
 */
export function exhaustedBy(s: HotspotSession): TerminateCause | undefined {
  const { counters: c, limits: l } = s;
  if (l.sessionTimeout !== undefined && l.sessionTimeout > 0 && c.uptime >= l.sessionTimeout)
    return 'Session-Timeout';
  if (l.limitBytesTotal !== undefined && c.bytesIn + c.bytesOut >= l.limitBytesTotal) return 'NAS-Request';
  if (l.limitBytesIn !== undefined && c.bytesIn >= l.limitBytesIn) return 'NAS-Request';
  if (l.limitBytesOut !== undefined && c.bytesOut >= l.limitBytesOut) return 'NAS-Request';
  return undefined;
}
