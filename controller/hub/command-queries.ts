import type { Db } from '../db/database.js';
import { OPEN_STATES_SQL } from './open-states.js';
import { FINAL_COMMAND_STATES } from './tables.js';

/** Everything still waiting for an outcome and not past its deadline: what a fresh link carries. */
export const openForAllocation = (db: Db, allocationId: string, now: string) =>
  db
    .selectFrom('agent_commands')
    .selectAll()
    .where('allocation_id', '=', allocationId)
    .where(OPEN_STATES_SQL)
    .where('deadline', '>', now)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** QUEUED commands of every allocation whose link this instance holds (the cross-instance sweep). */
// EXISTS rather than `allocation_id IN (SELECT … link_instance = ?)`: SQLite would build the list of
// every link this instance holds (10k ids at 10k agents) on each sweep; this looks up one row per
// QUEUED command, and there are few of those.
export const queuedForInstance = (db: Db, instanceId: string, now: string, limit: number) =>
  db
    .selectFrom('agent_commands')
    .selectAll()
    // Implied by the next term, but only as written does it let the planner use an open index.
    .where(OPEN_STATES_SQL)
    .where('state', '=', 'QUEUED')
    .where('deadline', '>', now)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('agent_links')
          .select('agent_links.allocation_id')
          .whereRef('agent_links.allocation_id', '=', 'agent_commands.allocation_id')
          .where('agent_links.link_instance', '=', instanceId),
      ),
    )
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();

/**
 * Marks the open commands past their deadline EXPIRED; `redact` rewrites the params of those that
 * carry secrets in the same transaction (see `CommandStatements.finish`). Answers their ids.
 */
export const expireOverdue = (
  db: Db,
  now: string,
  redact: (name: string, params: string) => string | undefined,
) =>
  db.transaction().execute(async (trx) => {
    const rows = await trx
      .updateTable('agent_commands')
      .set({ state: 'EXPIRED', finished_at: now })
      .where(OPEN_STATES_SQL)
      .where('deadline', '<=', now)
      .returning(['id', 'name', 'params'])
      .execute();
    for (const row of rows) {
      const params = redact(row.name, row.params);
      if (params !== undefined) {
        await trx.updateTable('agent_commands').set({ params }).where('id', '=', row.id).execute();
      }
    }
    return rows.map(({ id }) => ({ id }));
  });

/**
 * Deletes final commands whose deadline and end are both before `before`, at most `limit` of them
 * (one short statement; the job calls it until fewer come back). Open commands are never touched.
 */
export async function pruneFinished(db: Db, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('agent_commands')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('agent_commands')
        .select('id')
        // The deadline index finds them (open commands past it are few: the expiry job ends
        // them); the state and finished_at only confirm.
        .where('state', 'in', FINAL_COMMAND_STATES)
        .where('deadline', '<', before)
        .where('finished_at', '<', before)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
