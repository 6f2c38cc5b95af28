// The hub's `agent_links` rows, written by the hub instance that holds the agent's socket so that any
// instance can answer for the link. `link_session` (the connection's challenge nonce) says which
// connection owns the link, so a late write from a replaced connection changes nothing.
import type { Expression, ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { PreparedStatement, slot } from '../db/prepared-statement.js';
import type { HubTables } from './tables.js';

/**
 * The link is held by connection `sid`: the one condition on which every write of a connection
 * (its release, a command's send) depends. `sid` may be a prepared statement's slot.
 */
export const heldBySession = (sid: string) => (eb: ExpressionBuilder<HubTables, 'agent_links'>) =>
  eb('agent_links.link_session', '=', sid);

/**
 * The link of the command's allocation is held by connection `sid`, for statements on
 * `agent_commands`. EXISTS looks the link up by primary key, one row per command considered.
 * With `rowLocks` (PostgreSQL) the link row is read FOR KEY SHARE: a send recorded on connection
 * `sid` then commits before a newer connection can take the link over (`markConnected` locks the
 * row FOR UPDATE), so the newer connection's first read of open commands finds it; a takeover that
 * committed first makes the check fail and the command stays QUEUED for the new holder. (SQLite
 * has one writer at a time: nothing to lock.) KEY SHARE leaves the heartbeat's updates unblocked.
 */
export const linkOfCommandHeldBy =
  (sid: string, rowLocks: boolean) => (eb: ExpressionBuilder<HubTables, 'agent_commands'>) =>
    eb.exists(linkHeldBy(eb, eb.ref('agent_commands.allocation_id'), sid, rowLocks));

/** The read of `linkOfCommandHeldBy`, for a given allocation (a ref or a value). */
export function linkHeldBy<DB extends HubTables, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  allocationId: Expression<string>,
  sid: string,
  rowLocks: boolean,
) {
  const read = (eb as unknown as ExpressionBuilder<HubTables, never>)
    .selectFrom('agent_links')
    .select('agent_links.allocation_id')
    .where('agent_links.allocation_id', '=', allocationId)
    .where(heldBySession(sid));
  return rowLocks ? read.forKeyShare() : read;
}

/**
 * Records the link as connection `session`'s on `instance` (the row is created on the first link).
 * With `rowLocks` (PostgreSQL) the row is locked FOR UPDATE first: it waits for the sends still being
 * recorded on the previous connection (`linkOfCommandHeldBy`) to commit, so that the new
 * connection's read of open commands, after this, finds them.
 */
export const markConnected = (
  db: Db,
  allocationId: string,
  link: { instance: string; session: string; now: string; agentVersion: string },
  rowLocks: boolean,
) => {
  const values = {
    link_state: 'CONNECTED' as const,
    link_instance: link.instance,
    link_session: link.session,
    last_seen_at: link.now,
    agent_version: link.agentVersion,
  };
  const upsert = (trx: Db) =>
    trx
      .insertInto('agent_links')
      .values({ allocation_id: allocationId, ...values })
      .onConflict((oc) => oc.column('allocation_id').doUpdateSet(values))
      .execute();
  if (!rowLocks) return upsert(db);
  return db.transaction().execute(async (trx) => {
    await trx
      .selectFrom('agent_links')
      .select('allocation_id')
      .where('allocation_id', '=', allocationId)
      .forUpdate()
      .execute();
    return upsert(trx);
  });
};

/**
 * Records these links as down, each unless another connection holds it by now. Sessions are unique
 * per connection, so a row matches only its own (allocation, session) pair; the allocation ids let
 * the statement find the rows by primary key.
 */
export const markDisconnected = (
  db: Db,
  links: readonly { allocationId: string; session: string }[],
  now: string,
) =>
  db
    .updateTable('agent_links')
    .set({ link_state: 'DISCONNECTED', link_instance: null, link_session: null, last_seen_at: now })
    .where(
      'allocation_id',
      'in',
      links.map((l) => l.allocationId),
    )
    .where(
      'link_session',
      'in',
      links.map((l) => l.session),
    )
    .execute();

/** Records the link as down whoever holds it: the holder's next ownership check closes its session. */
export const dropLink = (db: Db, allocationId: string, now: string) =>
  db
    .updateTable('agent_links')
    .set({ link_state: 'DISCONNECTED', link_instance: null, link_session: null, last_seen_at: now })
    .where('allocation_id', '=', allocationId)
    .where('link_session', 'is not', null)
    .execute();

/**
 * Heartbeat: refreshes the links of these allocations, those this instance still holds. The hub
 * calls it for the agents it has just pinged, a slice at a time, so that at 10k agents no single
 * statement rewrites 10k rows.
 */
export const touchLinks = (db: Db, instance: string, allocationIds: readonly string[], now: string) =>
  db
    .updateTable('agent_links')
    .set({ last_seen_at: now })
    .where('allocation_id', 'in', allocationIds)
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
): Promise<{ allocation_id: string; link_session: string | null }[]> {
  // Read by primary key and filtered here, for the same reason as in touchLinks.
  const rows = await db
    .selectFrom('agent_links')
    .select(['allocation_id', 'link_session', 'link_instance', 'link_state'])
    .where('allocation_id', 'in', allocationIds)
    .execute();
  return rows.filter((r) => r.link_instance === instance && r.link_state === 'CONNECTED');
}

const LINK_FACTS = ['allocation_id', 'link_state', 'last_seen_at', 'agent_version'] as const;

/** The links of these allocations, those that ever had one (read by primary key). */
export const linksOf = (db: Db, allocationIds: readonly string[]) =>
  db.selectFrom('agent_links').select(LINK_FACTS).where('allocation_id', 'in', allocationIds).execute();

/** One allocation's link, as `linksOf` reads it, compiled once. */
export const linkOfStatement = (db: Db) =>
  new PreparedStatement(
    db.selectFrom('agent_links').select(LINK_FACTS).where('allocation_id', '=', slot(0)).compile(),
  );
