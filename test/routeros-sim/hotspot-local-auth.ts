// Login against the router's own /ip/hotspot/user table. RouterOS checks it
// first even when the server profile uses RADIUS; limits are per user, not
// per session, so a session gets what is left of them.
import type { SimRecord } from './menu-table.js';
import type { ReplyLimits } from './hotspot-radius-attrs.js';
import { parseDuration } from './ros-format.js';
import type { RouterState } from './router-state.js';

export const INVALID_LOGIN = 'invalid username or password';

export type LocalAuthOutcome = { ok: true; limits: ReplyLimits } | { ok: false; reason: string };

export function authenticateLocal(
  state: RouterState,
  user: SimRecord,
  request: { password: string; mac: string; server: string; activeSessions: number },
): LocalAuthOutcome {
  const p = user.props;
  const name = p.name ?? '';
  if (p.disabled === 'true') return { ok: false, reason: INVALID_LOGIN };
  if (p.server && p.server !== 'all' && p.server !== request.server)
    return { ok: false, reason: INVALID_LOGIN };
  if ((p.password ?? '') !== request.password) return { ok: false, reason: INVALID_LOGIN };
  if (p['mac-address'] && p['mac-address'].toUpperCase() !== request.mac.toUpperCase())
    return { ok: false, reason: INVALID_LOGIN };

  const uptime = parseDuration(p.uptime ?? '0s') ?? 0;
  const limitUptime = parseDuration(p['limit-uptime'] ?? '') ?? 0;
  if (limitUptime > 0 && uptime >= limitUptime)
    return { ok: false, reason: `user ${name} has reached uptime limit` };

  const used = { in: num(p['bytes-in']), out: num(p['bytes-out']) };
  const limitIn = num(p['limit-bytes-in']);
  const limitOut = num(p['limit-bytes-out']);
  const limitTotal = num(p['limit-bytes-total']);
  const traffic = `user ${name} has reached traffic limit`;
  if (limitTotal > 0 && used.in + used.out >= limitTotal) return { ok: false, reason: traffic };
  if (limitIn > 0 && used.in >= limitIn) return { ok: false, reason: traffic };
  if (limitOut > 0 && used.out >= limitOut) return { ok: false, reason: traffic };

  const profile = state.table('/ip/hotspot/user/profile').findBy('name', p.profile ?? 'default');
  const shared = Number(profile?.props['shared-users'] ?? '1');
  if (Number.isFinite(shared) && shared > 0 && request.activeSessions >= shared)
    return { ok: false, reason: 'no more sessions are allowed for user' };

  const limits: ReplyLimits = {};
  if (limitUptime > 0) limits.sessionTimeout = limitUptime - uptime;
  if (limitTotal > 0) limits.limitBytesTotal = limitTotal - used.in - used.out;
  if (limitIn > 0) limits.limitBytesIn = limitIn - used.in;
  if (limitOut > 0) limits.limitBytesOut = limitOut - used.out;
  const rate = profile?.props['rate-limit'];
  if (rate) limits.rateLimit = rate;
  return { ok: true, limits };
}

function num(v: string | undefined): number {
  const n = Number(v ?? '0');
  return Number.isFinite(n) ? n : 0;
}
