// The agent's memory of the router's bandwidth objects between passes. After a full read it keeps
// the digest, and `listen` on the five menus the plan writes tells it when any entry there is
// added, set or removed, by anyone. A later `bandwidth.digest` then needs one read, the default
// route (the WAN is part of the digest): the router answers it on the same session after every
// change it announced before, so when no announcement came and the WAN is the same, the kept
// digest is the router's. Anything else (an announcement, a listen that stopped or was refused, a
// reopened session, a kept digest older than `maxAgeMs`) means a full read, as without the watch.
import type { CommandOutput } from '../../protocol/index.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import { findWanInterface } from '../routeros/wan-interface.js';
import { bandwidthDigest, readBandwidthObjects, type BandwidthObjects } from './bandwidth-digest.js';
import { MENUS } from './bandwidth-plan.js';

type Digest = CommandOutput<'bandwidth.digest'>;

/**
 * A full read at least this often even when nothing was announced: a RouterOS build whose
 * `listen` missed a change (some menus are known not to announce removals) is corrected within it.
 */
export const WATCH_MAX_AGE_MS = 30 * 60_000;

interface Listening {
  router: RouterConnection;
  session: object;
  stop: AbortController;
  /** False once any of the listens ended (link down, trap, cancelled). */
  live: boolean;
}

interface Kept {
  output: Digest;
  /** `changes` when it was read. */
  changes: number;
  at: number;
}

export class BandwidthWatch {
  #listening: Listening | undefined;
  #starting: Promise<Listening | undefined> | undefined;
  /** Bumped by every announcement and every listen that ends. */
  #changes = 0;
  #kept: Kept | undefined;
  /** Sessions on which a listen was refused: no watch there, full reads only. */
  readonly #refused = new WeakSet<object>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs = WATCH_MAX_AGE_MS,
  ) {}

  /** `bandwidth.digest`: the kept digest when nothing changed since, else a full read. */
  async digest(router: RouterConnection, call: { signal?: AbortSignal }): Promise<Digest> {
    const kept = this.#kept;
    const listening = this.#listening;
    if (kept && listening?.live && listening.router === router && this.now() - kept.at < this.maxAgeMs) {
      const wan = (await findWanInterface(router, call)) ?? null;
      if (
        this.#kept === kept &&
        listening.live &&
        router.session === listening.session &&
        this.#changes === kept.changes &&
        wan === kept.output.wan_interface
      )
        return kept.output;
    }
    const objects = await this.read(router, call);
    return digestOf(objects);
  }

  /**
   * A full read of the objects (`bandwidth.apply` reads through here too); its digest is kept when
   * the listens ran on the same session all along and announced nothing meanwhile.
   */
  async read(router: RouterConnection, call: { signal?: AbortSignal }): Promise<BandwidthObjects> {
    const listening = await this.#listen(router);
    const before = this.#changes;
    const objects = await readBandwidthObjects(router, call);
    if (listening?.live && router.session === listening.session && this.#changes === before)
      this.#kept = { output: digestOf(objects), changes: before, at: this.now() };
    else this.#kept = undefined;
    return objects;
  }

  /** Stops the listens and forgets the digest (an agent's listens end with its router session). */
  stop(): void {
    this.#listening?.stop.abort();
    this.#listening = undefined;
    this.#kept = undefined;
  }

  // The listens on the current session, started when there are none. The listen words go out
  // before the reads that follow on the same session, so a change after a read is announced.
  async #listen(router: RouterConnection): Promise<Listening | undefined> {
    const current = this.#listening;
    if (current?.live && current.router === router && router.session === current.session) return current;
    this.#starting ??= this.#start(router).finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  async #start(router: RouterConnection): Promise<Listening | undefined> {
    this.stop();
    const open = router.session;
    if (open !== undefined && this.#refused.has(open)) return undefined;
    const stop = new AbortController();
    const changed = () => {
      this.#changes++;
    };
    let started: { session: object; ended: Promise<unknown> }[];
    try {
      started = await Promise.all(
        Object.values(MENUS).map((menu) => router.listen(menu, changed, { signal: stop.signal })),
      );
    } catch {
      stop.abort();
      return undefined;
    }
    const session = started[0]!.session;
    if (this.#refused.has(session) || started.some((s) => s.session !== session)) {
      stop.abort();
      return undefined;
    }
    const listening: Listening = { router, session, stop, live: true };
    for (const { ended } of started) {
      // A listen the router ended itself (refused on this menu, or the link dropped): no watch on
      // this session any more; a reopened session is another one and tries again.
      void ended.then(() => {
        if (!stop.signal.aborted) this.#refused.add(session);
        listening.live = false;
        this.#changes++;
        stop.abort();
      });
    }
    this.#listening = listening;
    return listening;
  }
}

function digestOf(objects: BandwidthObjects): Digest {
  const found = Object.values(objects.marked).reduce((n, rows) => n + rows.length, 0);
  return { digest: bandwidthDigest(objects), found, wan_interface: objects.wan };
}
