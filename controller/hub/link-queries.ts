// The link columns of `allocations`, written by the hub instance that holds the agent's socket so
// that any instance can answer the list. `link_session` (the connection's challenge nonce) says
// which connection owns the link, so a late write from a replaced connection changes nothing.
import type { Db } from '../db/database.js';

export const markConnected = (
  db: Db,
  allocationId: string,
  link: { instance: string; session: string; now: string; agentVersion: string },
) =>
  db
    .updateTable('allocations')
    .set({
      link_state: 'CONNECTED',
      link_instance: link.instance,
      link_session: link.session,
      last_seen_at: link.now,
      agent_version: link.agentVersion,
    })
    .where('id', '=', allocationId)
    .execute();

export const markDisconnected = (db: Db, allocationId: string, session: string, now: string) =>
  db
    .updateTable('allocations')
    .set({ link_state: 'DISCONNECTED', link_instance: null, link_session: null, last_seen_at: now })
    .where('id', '=', allocationId)
    .where('link_session', '=', session)
    .execute();

/**
 * Heartbeat: refreshes the links of these allocations, those this instance still holds. The hub
 * calls it for the agents it has just pinged, a slice at a time, so that at 10k agents no single
 * statement rewrites 10k rows.
 */
export const touchLinks = (db: Db, instance: string, allocationIds: readonly string[], now: string) =>
  db
    .updateTable('allocations')
    .set({ last_seen_at: now })
    .where('id', 'in', allocationIds)
    // coalesce() keeps SQLite on the primary key: without table statistics it would rather walk the
    // link_instance index, i.e. every link this instance holds (13-30 ms per slice at 10k links).
    .where((eb) => eb(eb.fn.coalesce('link_instance', eb.val('')), '=', instance))
    .where('link_state', '=', 'CONNECTED')
    .execute();

/** Which session the database says owns each of these links, among those this instance holds. */
export async function linkOwners(
  db: Db,
  instance: string,
  allocationIds: readonly string[],
): Promise<{ id: string; link_session: string | null }[]> {
  // Read by primary key and filtered here, for the same reason as in touchLinks.
  const rows = await db
    .selectFrom('allocations')
    .select(['id', 'link_session', 'link_instance', 'link_state'])
    .where('id', 'in', allocationIds)
    .execute();
  return rows.filter((r) => r.link_instance === instance && r.link_state === 'CONNECTED');
}
