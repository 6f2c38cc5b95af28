// Every statement on `qoe_actions`.
import type { Db } from '../../db/database.js';
import type { QoeActionsTable } from './tables.js';

export async function insertAction(db: Db, row: QoeActionsTable): Promise<void> {
  await db.insertInto('qoe_actions').values(row).execute();
}

export const findAction = (db: Db, clientId: string, id: string) =>
  db
    .selectFrom('qoe_actions')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .executeTakeFirst();

/** The oldest RUNNING actions, at most `limit`. */
export const listRunning = (db: Db, limit: number) =>
  db
    .selectFrom('qoe_actions')
    .selectAll()
    .where('state', '=', 'RUNNING')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();

/** The RUNNING actions waiting on one accounting session of a NAS. */
export const runningForSession = (db: Db, clientId: string, nasId: string, sessionId: string) =>
  db
    .selectFrom('qoe_actions')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('session_id', '=', sessionId)
    .where('nas_id', '=', nasId)
    .where('state', '=', 'RUNNING')
    .execute();

/** Changes a RUNNING action; false when it was no longer RUNNING (another pass decided first). */
export async function updateRunning(
  db: Db,
  clientId: string,
  id: string,
  changes: Partial<
    Pick<QoeActionsTable, 'state' | 'reason' | 'ended_by' | 'router_answer' | 'command_id' | 'finished_at'>
  > & {
    updated_at: string;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('qoe_actions')
    .set(changes)
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('state', '=', 'RUNNING')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
