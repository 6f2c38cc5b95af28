import type { Db } from '../db/database.js';
import { OPEN_COMMAND_STATES, type AgentCommandsTable, type CommandState } from './tables.js';

export const insertCommand = (db: Db, row: AgentCommandsTable) =>
  db.insertInto('agent_commands').values(row).execute();

export const findForClient = (db: Db, clientId: string, id: string) =>
  db
    .selectFrom('agent_commands')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .executeTakeFirst();

/** A command as its agent may see it: only the commands of its own allocation. */
export const findForAllocation = (db: Db, allocationId: string, id: string) =>
  db
    .selectFrom('agent_commands')
    .selectAll()
    .where('allocation_id', '=', allocationId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Everything still waiting for an outcome and not past its deadline: what a fresh link carries. */
export const openForAllocation = (db: Db, allocationId: string, now: string) =>
  db
    .selectFrom('agent_commands')
    .selectAll()
    .where('allocation_id', '=', allocationId)
    .where('state', 'in', OPEN_COMMAND_STATES)
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
    .where('state', '=', 'QUEUED')
    .where('deadline', '>', now)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('allocations')
          .select('allocations.id')
          .whereRef('allocations.id', '=', 'agent_commands.allocation_id')
          .where('allocations.link_instance', '=', instanceId),
      ),
    )
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();

/**
 * The in-process send of a command just queued: QUEUED becomes SENT on the link of session `sid`
 * only, and the row comes back, in one statement found by primary key. (Reading the allocation's
 * QUEUED commands first would cost a second statement, and without table statistics SQLite answers
 * that read through the (state, deadline) index, i.e. by scanning every QUEUED command.)
 */
export const claimQueued = (db: Db, id: string, sid: string, now: string) =>
  db
    .updateTable('agent_commands')
    .set((eb) => ({ state: 'SENT' as CommandState, sent_at: now, attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('state', '=', 'QUEUED')
    .where('deadline', '>', now)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('allocations')
          .select('allocations.id')
          .whereRef('allocations.id', '=', 'agent_commands.allocation_id')
          .where('allocations.link_session', '=', sid),
      ),
    )
    .returningAll()
    .executeTakeFirst();

/**
 * Records one more send of an open command, on the link of session `sid` only: if another
 * connection took the link over in the meantime, nothing is written and nothing must be sent.
 * QUEUED becomes SENT; SENT and ACKED stay as they are (a resend after a reconnect).
 */
export async function claimForSend(db: Db, id: string, sid: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('agent_commands')
    .set((eb) => ({
      state: eb
        .case()
        .when('state', '=', 'QUEUED')
        .then('SENT')
        .else(eb.ref('state'))
        .end()
        .$castTo<CommandState>(),
      sent_at: now,
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', '=', id)
    .where('state', 'in', OPEN_COMMAND_STATES)
    .where('deadline', '>', now)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('allocations')
          .select('allocations.id')
          .whereRef('allocations.id', '=', 'agent_commands.allocation_id')
          .where('allocations.link_session', '=', sid),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function markAcked(db: Db, allocationId: string, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('agent_commands')
    .set({ state: 'ACKED', acked_at: now })
    .where('allocation_id', '=', allocationId)
    .where('id', '=', id)
    .where('state', 'in', ['QUEUED', 'SENT'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export type Outcome = Pick<
  AgentCommandsTable,
  'output' | 'fault_code' | 'fault_message' | 'fault_retryable' | 'finished_at'
> & { state: 'DONE' | 'FAILED' };

/**
 * Writes the outcome once: a command already final is left exactly as it is.
 * @returns the final row when this call wrote it (what waiters in this process are handed).
 */
export const finish = (db: Db, allocationId: string, id: string, outcome: Outcome) =>
  db
    .updateTable('agent_commands')
    .set(outcome)
    .where('allocation_id', '=', allocationId)
    .where('id', '=', id)
    .where('state', 'in', OPEN_COMMAND_STATES)
    .returningAll()
    .executeTakeFirst();

export const expireOverdue = (db: Db, now: string) =>
  db
    .updateTable('agent_commands')
    .set({ state: 'EXPIRED', finished_at: now })
    .where('state', 'in', OPEN_COMMAND_STATES)
    .where('deadline', '<=', now)
    .returning('id')
    .execute();
