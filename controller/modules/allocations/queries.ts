import type { Db } from '../../db/database.js';
import type { AgentReportsTable, AllocationsTable } from './tables.js';

export type FactColumns = Partial<
  Pick<
    AllocationsTable,
    | 'router_serial'
    | 'router_identity'
    | 'router_model'
    | 'routeros_version'
    | 'architecture'
    | 'board_name'
    | 'free_hdd_bytes'
    | 'total_hdd_bytes'
    | 'radius_relay_address'
    | 'radius_relay_auth_port'
    | 'radius_relay_acct_port'
  >
>;

export const insertAllocation = (db: Db, row: AllocationsTable) =>
  db.insertInto('allocations').values(row).execute();

export const listForClient = (db: Db, clientId: string) =>
  db
    .selectFrom('allocations')
    .selectAll()
    .where('client_id', '=', clientId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findForClient = (db: Db, clientId: string, id: string) =>
  db
    .selectFrom('allocations')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Revokes the client's allocation; a second revocation keeps the first time. Answers the rows changed. */
export const revokeAllocation = (db: Db, clientId: string, id: string, now: string) =>
  db
    .updateTable('allocations')
    .set({ revoked_at: now })
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

export const findById = (db: Db, id: string) =>
  db.selectFrom('allocations').selectAll().where('id', '=', id).executeTakeFirst();

/**
 * Uses a code once: one conditional UPDATE, so two agents racing with one code cannot both win.
 * Answers the allocation it enrolled, or undefined for an unknown, used, expired or revoked code.
 */
export const claimEnrolCode = (
  db: Db,
  codeHash: string,
  now: string,
  agent: { agent_id: string; agent_public_key: string },
) =>
  db
    .updateTable('allocations')
    .set({ ...agent, enrol_code_used_at: now, enrolled_at: now })
    .where('enrol_code_hash', '=', codeHash)
    .where('enrol_code_used_at', 'is', null)
    .where('enrol_code_expires_at', '>', now)
    .where('revoked_at', 'is', null)
    .returning(['id', 'client_id'])
    .executeTakeFirst();

/** The enrolled agent's allocation, whatever its tenant: the agent's signature is its credential. */
export const findByAgentId = (db: Db, agentId: string) =>
  db
    .selectFrom('allocations')
    .select(['id', 'client_id', 'agent_id', 'agent_public_key', 'revoked_at'])
    .where('agent_id', '=', agentId)
    .executeTakeFirst();

/** Stores a report unless its id is already stored; true when this call stored it. */
export async function insertReport(db: Db, row: AgentReportsTable): Promise<boolean> {
  const result = await db
    .insertInto('agent_reports')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Writes the facts it is given, unless newer facts (by the agent's reading time) are stored already. */
export const updateFacts = (db: Db, allocationId: string, facts: FactColumns, at: string) =>
  db
    .updateTable('allocations')
    .set({ ...facts, facts_updated_at: at })
    .where('id', '=', allocationId)
    .where((eb) => eb.or([eb('facts_updated_at', 'is', null), eb('facts_updated_at', '<=', at)]))
    .execute();
