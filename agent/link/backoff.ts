// Reconnect delays: capped exponential backoff with full jitter (AWS architecture blog, "Exponential
// Backoff And Jitter"): after failure n the wait is uniform in [0, min(cap, base * 2^n)], so a fleet
// of agents cut off together by a controller restart does not come back in lockstep.

export interface BackoffPolicy {
  /** Ceiling of the first wait (default 1 s). */
  baseMs: number;
  /** Largest ceiling (default 60 s). */
  capMs: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({ baseMs: 1000, capMs: 60_000 });

// 2^31 ms is 24 days: far above any cap, and no float overflow on the way.
const MAX_EXPONENT = 31;

/** The range of the wait before reconnect attempt number `attempt` (0 = first retry). */
export function backoffBounds(
  attempt: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
): { min: number; max: number } {
  if (!Number.isInteger(attempt) || attempt < 0)
    throw new RangeError(`attempt must be an integer >= 0, got ${attempt}`);
  const ceiling = policy.baseMs * 2 ** Math.min(attempt, MAX_EXPONENT);
  return { min: 0, max: Math.min(policy.capMs, ceiling) };
}

/**
 * The wait before reconnect attempt `attempt`: `random()` (in [0, 1)) scaled to the bounds.
 * `random` is injected so tests pin the jitter.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const { max } = backoffBounds(attempt, policy);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * max);
}

/** Counts failed attempts and hands out the next wait; `reset()` after a connection proved stable. */
export class Backoff {
  #attempt = 0;

  constructor(
    private readonly policy: BackoffPolicy = DEFAULT_BACKOFF,
    private readonly random: () => number = Math.random,
  ) {}

  /** Number of waits handed out since the last reset. */
  get attempt(): number {
    return this.#attempt;
  }

  /** The next wait, in milliseconds; each call moves one step up the ladder. */
  next(): number {
    const delay = backoffDelay(this.#attempt, this.policy, this.random);
    this.#attempt++;
    return delay;
  }

  reset(): void {
    this.#attempt = 0;
  }
}
