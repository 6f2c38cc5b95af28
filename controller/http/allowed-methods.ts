// A path that exists with other methods answers 405 with `Allow`, and OPTIONS answers the methods,
// both in the JSON envelope (Koa router's own answers are plain text or empty).
import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { AppError } from '../core/app-error.js';

/** The methods the routes matching `path` take (HEAD comes with GET), or none when no route has it. */
export function methodsOf(router: Router, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of router.match(path, 'GET').path) for (const m of layer.methods) methods.add(m);
  return [...methods];
}

/** The path template of a route at `path`, whatever its method (for logs), or null. */
export function templateOf(router: Router, path: string): string | null {
  const layer = router.match(path, 'GET').path.find((l) => l.methods.length > 0);
  return layer ? String(layer.path) : null;
}

export function allowedMethods(router: Router) {
  return async (ctx: Context, next: Next): Promise<void> => {
    await next();
    // A route answered (or threw): nothing to add.
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const allowed = methodsOf(router, ctx.path);
    if (allowed.length === 0) return;
    if (!allowed.includes('OPTIONS')) allowed.push('OPTIONS');
    const allow = allowed.join(', ');
    ctx.set('Allow', allow);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 200;
      ctx.body = { success: true, data: { methods: allowed } };
      return;
    }
    throw new AppError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed here; allowed: ${allow}`, {
      headers: { Allow: allow },
    });
  };
}
