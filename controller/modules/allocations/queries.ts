import type { CompiledQuery } from 'kysely';
import type { Db } from '../../db/database.js';
import { PreparedStatement, slot } from '../../db/prepared-statement.js';
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

/** The client's allocation by id, compiled once: read on every relayed request to a device. */
export const findForClientStatement = (db: Db) =>
  new PreparedStatement(
    db
      .selectFrom('allocations')
      .selectAll()
      .where('client_id', '=', slot(0))
      .where('id', '=', slot(1))
      .compile() as CompiledQuery<AllocationsTable>,
  );

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

/** The client's live (not revoked) allocation of a router serial, the oldest when several claim it. */
export const findLiveBySerial = (db: Db, clientId: string, serial: string) =>
  db
    .selectFrom('allocations')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('router_serial', '=', serial)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();

/** A new enrolment code for a slot whose agent has not enrolled yet (the previous code stops working). */
export const replaceEnrolCode = (db: Db, id: string, codeHash: string, expiresAt: string) =>
  db
    .updateTable('allocations')
    .set({ enrol_code_hash: codeHash, enrol_code_expires_at: expiresAt })
    .where('id', '=', id)
    .where('enrolled_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

/** What the app said of a router it made a slot for; `facts_updated_at` stays null so the agent's facts win. */
export const setAppFacts = (db: Db, id: string, facts: FactColumns) =>
  db.updateTable('allocations').set(facts).where('id', '=', id).execute();
