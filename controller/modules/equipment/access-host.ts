// The per-device host (`<device id>.<TICKETNET_EQUIPMENT_DEVICE_DOMAIN>`): opening a signed link
// (`?st=`) sets a host-only cookie and serves the device's interface; later requests on that host
// carry the cookie. Every request is checked again (tenant, ACTIVE, owner, link) and relayed as
// `/access/:deviceId` does, the whole interface at the host's root. Our cookie never reaches the
// device. An expired, altered or other host's token is 403.
import type { Context, Middleware, Next } from 'koa';
import type { Clock } from '../../core/clock.js';
import { AppError } from '../../core/app-error.js';
import {
  ACCESS_COOKIE,
  ACCESS_COOKIE_TTL_SECONDS,
  signAccess,
  verifyAccess,
  type AccessClaims,
} from './access-link.js';
import { openAndRelay, type RelayDeps } from './relay.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface AccessHostDeps extends RelayDeps {
  domain: string | undefined;
  key: string;
  clock: Clock;
}

function forbidden(): AppError {
  return new AppError('ACCESS_LINK_INVALID', 'This access link is expired, altered or for another device');
}

/** The cookie header without our cookie (the device has its own session cookies). */
function withoutOurCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const kept = header
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c !== '' && !c.startsWith(`${ACCESS_COOKIE}=`));
  return kept.length > 0 ? kept.join('; ') : undefined;
}

export function accessHostMiddleware(deps: AccessHostDeps): Middleware {
  return async (ctx: Context, next: Next) => {
    const domain = deps.domain?.toLowerCase();
    const host = ctx.hostname.toLowerCase();
    if (!domain || !host.endsWith(`.${domain}`)) return next();
    const deviceId = host.slice(0, -domain.length - 1);
    if (!UUID.test(deviceId)) return next();
    const now = Math.floor(deps.clock.now().getTime() / 1000);
    const st = typeof ctx.query.st === 'string' ? ctx.query.st : undefined;
    let claims: AccessClaims | undefined;
    if (st !== undefined) {
      claims = verifyAccess(st, deps.key, host, now, 'link');
      if (!claims || claims.d !== deviceId) throw forbidden();
      // a session of its own on this host only (no Domain attribute): the link is not replayable elsewhere
      const session = signAccess({ ...claims, e: now + ACCESS_COOKIE_TTL_SECONDS, k: 'session' }, deps.key);
      ctx.cookies.set(ACCESS_COOKIE, session, {
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.secure,
        maxAge: ACCESS_COOKIE_TTL_SECONDS * 1000,
        overwrite: true,
      });
    } else {
      const cookie = ctx.cookies.get(ACCESS_COOKIE);
      claims = cookie ? verifyAccess(cookie, deps.key, host, now, 'session') : undefined;
      if (!claims || claims.d !== deviceId) throw forbidden();
    }
    const cookies = withoutOurCookie(ctx.get('cookie'));
    if (cookies === undefined) delete ctx.req.headers.cookie;
    else ctx.req.headers.cookie = cookies;
    // `st` is ours too: the device sees the path and the rest of the query
    const query = new URLSearchParams(ctx.querystring);
    query.delete('st');
    await openAndRelay(ctx, deps, claims.c, deviceId, ctx.path, query.toString());
  };
}
