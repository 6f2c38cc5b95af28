// The agents' links as the database records them: the hub is their one writer, and other modules
// read them through the LinkStateReader they declare (the allocations' views).
import { chunks } from '../core/chunks.js';
import type { Db } from '../db/database.js';
import type { LinkFacts, LinkStateReader } from '../modules/allocations/index.js';
import * as q from './link-queries.js';

// Ids per read: below SQLite's and PostgreSQL's bound-parameter limits (a client may hold 10k).
const MAX_IDS_PER_READ = 1000;

export class AgentLinks implements LinkStateReader {
  /** `rowLocks`: the dialect's capability (PostgreSQL), see `markConnected` in link-queries.ts. */
  constructor(
    private readonly db: Db,
    private readonly rowLocks: boolean,
  ) {}

  async linksOf(allocationIds: readonly string[]): Promise<Map<string, LinkFacts>> {
    const links = new Map<string, LinkFacts>();
    for (const ids of chunks(allocationIds, MAX_IDS_PER_READ)) {
      for (const { allocation_id, ...facts } of await q.linksOf(this.db, ids))
        links.set(allocation_id, facts);
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
    await q.markDisconnected(this.db, allocationId, session, now);
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
