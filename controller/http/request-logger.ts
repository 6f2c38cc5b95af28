import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { newId } from '../core/ids.js';
import type { Logger } from '../logger.js';
import { templateOf } from './allowed-methods.js';
import { matchedRoute } from './error-middleware.js';

/**
 * One log line per request: route, status, duration and the tenant (account) when known. The
 * route is logged as its template (`/api/v1/radius/tickets/:code`), never the path: a path may
 * hold a ticket's code, which is its password. Only a path no route has is logged as sent.
 */
export function requestLogger(logger: Logger, router: Router) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    const requestId = newId();
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = matchedRoute(ctx) ?? templateOf(router, ctx.path);
      logger.info(
        {
          req_id: requestId,
          method: ctx.method,
          route,
          ...(route === null ? { path: ctx.path } : {}),
          status: ctx.status,
          duration_ms: Math.round(ms * 100) / 100,
          tenant: (ctx.state as { principal?: { tenantId?: string } }).principal?.tenantId,
          ip: ctx.ip,
        },
        'request',
      );
    }
  };
}
