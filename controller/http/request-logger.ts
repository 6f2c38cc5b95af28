import type { Context, Next } from 'koa';
import { newId } from '../core/ids.js';
import type { Logger } from '../logger.js';

/** One log line per request: route, status, duration and the tenant (account) when known. */
export function requestLogger(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    const requestId = newId();
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          req_id: requestId,
          method: ctx.method,
          path: ctx.path,
          route: (ctx as { _matchedRoute?: string })._matchedRoute,
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
