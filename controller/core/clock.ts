// The one source of "now". Jobs, leases, expiries and tests all read time from an injected Clock,
// so a manual clock can move the whole controller through days in a test.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export class ManualClock implements Clock {
  #now: Date;

  constructor(start: Date = new Date()) {
    this.#now = new Date(start.getTime());
  }

  now(): Date {
    return new Date(this.#now.getTime());
  }

  set(at: Date): void {
    this.#now = new Date(at.getTime());
  }

  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
  }
}

/** ISO 8601 with `Z`, the only way timestamps leave or enter the database. */
export const iso = (d: Date): string => d.toISOString();
