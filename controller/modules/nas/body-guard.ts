// POST /api/v1/radius/nas must answer ROUTER_SERIAL_REQUIRED for any body without a serial, and
// the body parser refuses some before any route runs (a JSON string, number or null, broken JSON).
// Mounted just before the body parser, this turns those refusals into ROUTER_SERIAL_REQUIRED.
import type { Context, Next } from 'koa';
import { AppError } from '../../core/app-error.js';

const ENROL_PATH = /^\/api\/v1\/radius\/nas\/?$/;

export function nasEnrolBodyGuard() {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method !== 'POST' || !ENROL_PATH.test(ctx.path)) return next();
    try {
      await next();
    } catch (err) {
      const status = (err as { status?: number } | null)?.status;
      if (err instanceof AppError || status !== 400) throw err;
      const message = 'router_serial is required (the body is not a JSON object)';
      throw new AppError('ROUTER_SERIAL_REQUIRED', message, {
        details: [{ field: 'router_serial', message }],
      });
    }
  };
}
