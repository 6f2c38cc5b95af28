// Route registration in one place: each route declares its method, path, auth, the licence it
// needs and the zod schemas of its body, query and params. The same declaration validates
// requests and feeds the OpenAPI document, so the two can never disagree.
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { AppError } from '../core/app-error.js';
import {
  underCredentialQuota,
  type ApiLimiters,
  type NamedLimiter,
  type RateLimiter,
} from './rate-limiter.js';
import type { AuthRequirement, AuthStrategy, Principal } from './principal.js';
import { parseOrThrow } from './validation.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteSpec<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  method: Method;
  path: string;
  summary: string;
  tags: string[];
  auth: AuthRequirement;
  body?: B;
  query?: Q;
  params?: P;
  /** Status of a successful answer (default 200). */
  status?: number;
  /**
   * A per-principal limiter (money and programme routes), or the name of one the Api holds:
   * `money` (per user) or `credentials` (a public route that checks a credential).
   */
  limiter?: RateLimiter | NamedLimiter;
  /**
   * The product whose licence the caller's tenant must hold (403 with the licence's code when it
   * is not active). Checked for account callers once the input is valid, before the handler; a
   * reseller is admitted by its own token.
   */
  licence?: LicensedProduct;
}

export type LicensedProduct = 'RADIUS';

/** Throws the licence's AppError when the tenant does not hold an active licence for the product. */
export type LicenceGate = (tenantId: string, product: LicensedProduct) => Promise<void>;

export interface RouteInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  principal: Principal | null;
}

export interface RegisteredRoute {
  spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export class Api {
  readonly routes: RegisteredRoute[] = [];
  readonly #router: Router;
  readonly #strategies: AuthStrategy[];
  readonly #licences: LicenceGate;
  readonly #limiters: ApiLimiters;

  constructor(router: Router, strategies: AuthStrategy[], licences: LicenceGate, limiters: ApiLimiters = {}) {
    this.#router = router;
    this.#strategies = strategies;
    this.#licences = licences;
    this.#limiters = limiters;
  }

  route<B extends z.ZodType = never, Q extends z.ZodType = never, P extends z.ZodType = never>(
    spec: RouteSpec<B, Q, P>,
    handler: (ctx: Context, input: RouteInput<Out<B>, Out<Q>, Out<P>>) => Promise<unknown>,
  ): void {
    this.routes.push({ spec: spec as unknown as RouteSpec<z.ZodType, z.ZodType, z.ZodType> });
    const perUser = spec.limiter === 'money' ? this.#limiters.money : spec.limiter;
    // Failed credentials count per address wherever a credential is checked: a bearer token on
    // every authenticated route, and the public routes that declare it (the login).
    const failures =
      spec.auth !== 'public' || spec.limiter === 'credentials' ? this.#limiters.credentials : undefined;
    this.#router[spec.method](spec.path, (ctx) =>
      underCredentialQuota(
        failures,
        ctx,
        spec.limiter === 'credentials' || ctx.get('authorization') !== '',
        () => this.#run(ctx, spec, perUser, handler),
      ),
    );
  }

  async #run<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType>(
    ctx: Context,
    spec: RouteSpec<B, Q, P>,
    perUser: RateLimiter | 'credentials' | undefined,
    handler: (ctx: Context, input: RouteInput<Out<B>, Out<Q>, Out<P>>) => Promise<unknown>,
  ): Promise<void> {
    const principal = await this.#authenticate(ctx, spec.auth);
    if (principal) ctx.state.principal = principal;
    if (principal && perUser && perUser !== 'credentials') perUser.hit(principal.subjectId);
    if (spec.body) refuseNonJsonBody(ctx);
    const input = {
      params: (spec.params ? parseOrThrow(spec.params, ctx.params, 'path parameters') : ctx.params) as Out<P>,
      query: (spec.query ? parseOrThrow(spec.query, ctx.query, 'query') : undefined) as Out<Q>,
      body: (spec.body ? parseOrThrow(spec.body, ctx.request.body ?? {}, 'body') : undefined) as Out<B>,
      principal,
    };
    if (spec.licence && principal?.type === 'account') await this.#licences(principal.tenantId, spec.licence);
    const result = await handler(ctx, input);
    if (result !== undefined) {
      ctx.status = spec.status ?? 200;
      ctx.body = result;
    }
  }

  async #authenticate(ctx: Context, auth: AuthRequirement): Promise<Principal | null> {
    if (auth === 'public') return null;
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1]) throw new AppError('UNAUTHENTICATED', 'Missing bearer token');
    let principal: Principal | null = null;
    for (const strategy of this.#strategies) {
      principal = await strategy(match[1]);
      if (principal) break;
    }
    if (!principal) throw new AppError('UNAUTHENTICATED', 'Invalid or expired token');
    if (!auth.includes(principal.kind)) {
      throw new AppError('FORBIDDEN', 'This account may not use this route');
    }
    return principal;
  }
}

/**
 * A body sent in another type than JSON is refused (415), never read as `{}`: the body parser
 * leaves such a body unread, so a route would otherwise act on an empty object. No body at all
 * (no length, or length 0) stays allowed: the route's schema judges `{}`.
 */
function refuseNonJsonBody(ctx: Context): void {
  const length = Number(ctx.get('content-length') || 0);
  const sent = length > 0 || ctx.get('transfer-encoding') !== '';
  if (sent && ctx.request.rawBody === undefined) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  }
}
