// The agents' links as the database records them: the hub is their one writer, and other modules
// read them through the LinkStateReader they declare (the allocations' views).
import { chunks } from '../core/chunks.js';
import type { Db } from '../db/database.js';
import type { LinkFacts, LinkStateReader } from '../modules/allocations/index.js';
import * as q from './link-queries.js';

// Ids per read: below SQLite's and PostgreSQL's bound-parameter limits (a client may hold 10k).
const MAX_IDS_PER_READ = 1000;

interface PendingDown {
  allocationId: string;
  session: string;
  now: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class AgentLinks implements LinkStateReader {
  // One router's link, read on every relayed request: compiled once.
  readonly #linkOf: ReturnType<typeof q.linkOfStatement>;

  /** `rowLocks`: the dialect's capability (PostgreSQL), see `markConnected` in link-queries.ts. */
  constructor(
    private readonly db: Db,
    private readonly rowLocks: boolean,
  ) {
    this.#linkOf = q.linkOfStatement(db);
  }

  async linksOf(allocationIds: readonly string[]): Promise<Map<string, LinkFacts>> {
    const links = new Map<string, LinkFacts>();
    for (const ids of chunks(allocationIds, MAX_IDS_PER_READ)) {
      const rows =
        ids.length === 1 ? (await this.#linkOf.run(this.db, ids)).rows : await q.linksOf(this.db, ids);
      for (const { allocation_id, ...facts } of rows) links.set(allocation_id, facts);
    }
    return links;
  }

  /** Records the link as connection `session`'s, held by `instance`. */
  async markConnected(
    allocationId: string,
    link: { instance: string; session: string; now: string; agentVersion: string },
  ): Promise<void> {
    await q.markConnected(this.db, allocationId, link, this.rowLocks);
  }

  /** Records the link as down, unless another connection holds it by now. */
  async markDisconnected(allocationId: string, session: string, now: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#downs.push({ allocationId, session, now, resolve, reject });
      if (this.#downs.length === 1) setImmediate(() => void this.#writeDowns());
    });
  }

  // Releases are written together, MAX_IDS_PER_READ to a statement with a turn of the event loop
  // between statements: when a network cut drops thousands of agents at once, one write each would
  // hold the event loop (and RADIUS, the API) for seconds.
  #downs: PendingDown[] = [];

  async #writeDowns(): Promise<void> {
    const group = this.#downs.splice(0, MAX_IDS_PER_READ);
    if (this.#downs.length > 0) setImmediate(() => void this.#writeDowns());
    // The latest of the group's times: they lie within one turn of the event loop.
    const now = group.reduce((latest, d) => (d.now > latest ? d.now : latest), group[0]!.now);
    try {
      await q.markDisconnected(this.db, group, now);
      for (const d of group) d.resolve();
    } catch (err) {
      for (const d of group) d.reject(err);
    }
  }

  /** Records the link as down whoever holds it (a revoked agent): its holder closes it at its next check. */
  async drop(allocationId: string, now: string): Promise<void> {
    await q.dropLink(this.db, allocationId, now);
  }

  /** Refreshes `last_seen_at` of these links, those `instance` still holds. */
  async touch(instance: string, allocationIds: readonly string[], now: string): Promise<void> {
    await q.touchLinks(this.db, instance, allocationIds, now);
  }

  /** allocation id → the session that owns its link, among these links held by `instance`. */
  async owners(instance: string, allocationIds: readonly string[]): Promise<Map<string, string | null>> {
    const rows = await q.linkOwners(this.db, instance, allocationIds);
    return new Map(rows.map((r) => [r.allocation_id, r.link_session]));
  }
}
