// Fixed-window request counters. They live in process memory: a quota is protection, not
// business state, and losing the counters on restart only relaxes it for one window.
import type { Context, Next } from 'koa';
import type { Clock } from '../core/clock.js';
import { AppError, type ErrorCode } from '../core/app-error.js';

export interface Quota {
  limit: number;
  windowMs: number;
}

export class RateLimiter {
  readonly #windows = new Map<string, { count: number; resetAt: number }>();
  readonly #quota: Quota;
  readonly #clock: Clock;
  readonly #code: ErrorCode;
  #lastSweep = 0;

  constructor(quota: Quota, clock: Clock, code: ErrorCode = 'RATE_LIMITED') {
    this.#quota = quota;
    this.#clock = clock;
    this.#code = code;
  }

  /** Counts one hit for `key`; throws 429 with Retry-After once the window's quota is spent. */
  hit(key: string): void {
    const now = this.#clock.now().getTime();
    const w = this.#count(key, now);
    if (w.count > this.#quota.limit) throw this.#refusal(w, now);
  }

  /** Throws 429 with Retry-After when `key` has spent the window's quota, without counting. */
  check(key: string): void {
    const now = this.#clock.now().getTime();
    const w = this.#windows.get(key);
    if (w && w.resetAt > now && w.count >= this.#quota.limit) throw this.#refusal(w, now);
  }

  /** Whether `key` has spent the window's quota (check() without the error, for non-HTTP callers). */
  exhausted(key: string): boolean {
    const w = this.#windows.get(key);
    return w !== undefined && w.resetAt > this.#clock.now().getTime() && w.count >= this.#quota.limit;
  }

  /** Counts one event for `key` (a failed credential) without refusing it: check() refuses the next. */
  record(key: string): void {
    this.#count(key, this.#clock.now().getTime());
  }

  #count(key: string, now: number): { count: number; resetAt: number } {
    this.#sweep(now);
    let w = this.#windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + this.#quota.windowMs };
      this.#windows.set(key, w);
    }
    w.count += 1;
    return w;
  }

  #refusal(w: { resetAt: number }, now: number): AppError {
    const retry = Math.max(1, Math.ceil((w.resetAt - now) / 1000));
    return new AppError(this.#code, 'Too many requests; retry later', {
      headers: { 'Retry-After': String(retry) },
      details: { limit: this.#quota.limit, window_seconds: this.#quota.windowMs / 1000 },
    });
  }

  // Drop expired windows now and then so a flood of distinct keys cannot grow the map forever.
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.#quota.windowMs) return;
    this.#lastSweep = now;
    for (const [k, w] of this.#windows) if (w.resetAt <= now) this.#windows.delete(k);
  }
}

/**
 * Runs `run` (a credential check, or a whole route that makes one) under the failed-credentials
 * quota of the client's address: an address past it is refused before anything, and a 401 counts
 * against it when the request `presented` a credential (one that presented none guessed nothing).
 * Without a limiter, just runs.
 */
export async function underCredentialQuota<T>(
  limiter: Pick<RateLimiter, 'check' | 'record'> | undefined,
  ctx: Context,
  presented: boolean,
  run: () => Promise<T>,
): Promise<T> {
  if (!limiter) return run();
  limiter.check(ctx.ip);
  try {
    return await run();
  } catch (err) {
    if (presented && err instanceof AppError && err.status === 401) limiter.record(ctx.ip);
    throw err;
  }
}

/** The global quota: N requests per window per client IP on every `/api/…` and `/v1/…` route. */
export function ipQuota(limiter: RateLimiter) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path.startsWith('/api/') || ctx.path.startsWith('/v1/')) limiter.hit(ctx.ip);
    await next();
  };
}

/**
 * The limiters a route names in its spec instead of holding one: `money` counts every money
 * action of a user (top-ups, batches, balance changes; 429 CLICK_SPAM_PROTECTION); `credentials`
 * marks a public route that checks a credential (the login), so its failures count per address
 * like a wrong bearer token does.
 */
export type NamedLimiter = 'money' | 'credentials';

export interface ApiLimiters {
  /** Per user, on the routes declaring `limiter: 'money'`. */
  money?: RateLimiter;
  /** Failed credentials per client address: every authenticated route and those declaring `credentials`. */
  credentials?: RateLimiter;
}
