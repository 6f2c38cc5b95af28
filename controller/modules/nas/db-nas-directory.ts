// The RADIUS server's NAS directory backed by the `nas` table. Every packet asks it, so answers
// (misses included) are cached for a few seconds; this instance drops its cache on every NAS
// change it makes, other instances see a change within the TTL.
import type { Db } from '../../db/database.js';
import { normaliseIp, type NasDirectory, type NasEntry } from '../../radius/index.js';
import * as q from './queries.js';

/** Prefix of a NAS's `nasname` when its RADIUS arrives through the site agent's relay. */
const RELAY_PREFIX = 'agent:';

/**
 * The address a relayed packet is attributed to: the NAS's `nasname`. The relay passes it as the
 * packet source to `RadiusService.handle`, so the same lookup serves relayed and direct packets.
 */
export const relayIdentity = (allocationId: string): string => `${RELAY_PREFIX}${allocationId}`;

/** True for a relay identity; false for a NAS known by its source address (direct UDP). */
export const isRelayIdentity = (nasname: string): boolean => nasname.startsWith(RELAY_PREFIX);

export interface DbNasDirectoryOptions {
  /** How long an answer is reused (default 5 s). */
  ttlMs?: number;
  /** Cached answers kept at most; past it the cache starts over (a flood of unknown sources). */
  maxEntries?: number;
}

interface Cached {
  entry: NasEntry | null;
  until: number;
}

export class DbNasDirectory implements NasDirectory {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #byName = new Map<string, Cached>();
  readonly #byAllocation = new Map<string, Cached>();

  constructor(
    private readonly db: Db,
    options: DbNasDirectoryOptions = {},
  ) {
    this.#ttlMs = options.ttlMs ?? 5_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  /** The PENDING or ACTIVE NAS whose `nasname` is this source (an IP, or a relay identity). */
  lookup(sourceIp: string): Promise<NasEntry | null> {
    const name = normaliseIp(sourceIp);
    return this.#cached(this.#byName, name, () => q.lookupByNasname(this.db, name));
  }

  /** The PENDING or ACTIVE NAS of an allocation (what the agent relay knows a packet by). */
  forAllocation(allocationId: string): Promise<NasEntry | null> {
    return this.#cached(this.#byAllocation, allocationId, () => q.lookupByAllocation(this.db, allocationId));
  }

  /** Forgets every cached answer (called after each NAS change made by this instance). */
  invalidate(): void {
    this.#byName.clear();
    this.#byAllocation.clear();
  }

  async #cached(
    cache: Map<string, Cached>,
    key: string,
    read: () => Promise<{ id: string; client_id: string; secret: string } | undefined>,
  ): Promise<NasEntry | null> {
    // A monotonic timer, not the injected clock: this bounds staleness, it is not a business rule.
    const now = performance.now();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.entry === null ? null : { ...hit.entry };
    const row = await read();
    const entry = row ? { nasId: row.id, clientId: row.client_id, secret: row.secret } : null;
    if (cache.size >= this.#maxEntries) cache.clear();
    cache.set(key, { entry, until: now + this.#ttlMs });
    return entry === null ? null : { ...entry };
  }
}
