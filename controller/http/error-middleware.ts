// First middleware of the chain: turns every thrown error into the envelope of the route family.
// AppErrors carry their code; anything else is a 500 whose details stay in the log only.
import type { Context, Next } from 'koa';
import { errorFields, type Logger } from '../logger.js';
import { AppError } from '../core/app-error.js';

/** Route families and their error envelopes (`/v1/radius` and `/api/v1/radius` also carry `code` on top). */
export function envelope(path: string, err: AppError): Record<string, unknown> {
  const body: Record<string, unknown> = { success: false };
  if (path.startsWith('/v1/radius') || path.startsWith('/api/v1/radius')) body.code = err.code;
  body.error = { code: err.code, message: err.message };
  if (err.details !== undefined) body.details = err.details;
  return { ...body, ...err.extra };
}

export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      // a middleware that answered by itself (`ctx.respond` false) may answer 404 without a body
      if (ctx.status === 404 && ctx.body === undefined && ctx.respond !== false) {
        throw new AppError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
      }
    } catch (raw) {
      const err = toAppError(raw);
      if (err.status >= 500) {
        // The route's template, not the path: a path may hold a ticket's code (its password).
        logger.error(
          {
            ...errorFields(raw, logger),
            code: err.code,
            status: err.status,
            method: ctx.method,
            route: matchedRoute(ctx),
          },
          'request failed',
        );
      }
      ctx.status = err.status;
      for (const [k, v] of Object.entries(err.headers ?? {})) ctx.set(k, v);
      ctx.body = envelope(ctx.path, err);
    }
  };
}

// Errors raised by Koa's own body parser carry an HTTP status; map the ones a client can cause.
function toAppError(raw: unknown): AppError {
  if (raw instanceof AppError) return raw;
  const status = (raw as { status?: number; type?: string } | null)?.status;
  const type = (raw as { type?: string } | null)?.type;
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  if (status === 400 && (type === 'entity.parse.failed' || raw instanceof SyntaxError)) {
    return new AppError('INVALID_JSON', 'Request body is not valid JSON');
  }
  if (status === 400) return new AppError('VALIDATION_ERROR', 'Malformed request');
  return new AppError('INTERNAL_ERROR', 'Internal server error; retry later');
}

/** The path template of the route that answered (`/api/v1/radius/tickets/:code`), when one did. */
export function matchedRoute(ctx: Context): string | null {
  return (ctx as { _matchedRoute?: string })._matchedRoute ?? null;
}
