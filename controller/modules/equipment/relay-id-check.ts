// The relay's path (`/access/:deviceId/...`) with a device id that is not a UUID: refused as every
// other equipment route refuses a malformed id (400 VALIDATION_ERROR naming `deviceId`), after the
// same bearer check (401 without a valid one, 403 for an account that is not a client), instead of
// falling through to "no route". Nothing is read and nothing reaches a router. Runs before the
// relay, which only ever sees a well-formed id.
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '../../core/app-error.js';
import type { AccountPrincipal } from '../../http/principal.js';
import { EQUIPMENT_BASE } from './device-view.js';

const PATH = new RegExp(`^${EQUIPMENT_BASE}/access/([^/]*)(?:/.*)?$`);
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** How the request log names it, as a relayed request: never the path, which is the device's business. */
const ROUTE = `${EQUIPMENT_BASE}/access/:deviceId/*`;

export function relayIdCheck(deps: {
  authenticate: (token: string) => Promise<AccountPrincipal | null>;
}): Middleware {
  return async (ctx: Context, next: Next) => {
    const id = PATH.exec(ctx.path)?.[1];
    if (id === undefined || UUID.test(id)) return next();
    (ctx as { _matchedRoute?: string })._matchedRoute = ROUTE;
    const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    if (!bearer) throw new AppError('UNAUTHENTICATED', 'Missing bearer token');
    const principal = await deps.authenticate(bearer);
    if (!principal) throw new AppError('UNAUTHENTICATED', 'Invalid or expired token');
    if (principal.kind !== 'client') throw new AppError('FORBIDDEN', 'This account may not use this route');
    throw new AppError('VALIDATION_ERROR', 'Invalid path parameters', {
      details: [{ field: 'deviceId', message: 'expected a device id (UUID)' }],
    });
  };
}
