import type { Kysely } from 'kysely';

// Where the router credentials stand with the allocation's agent: PENDING until it took them,
// APPLIED (with when), REFUSED (the router did not accept them; the fault code kept).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('remote_access_slots').addColumn('credentials_state', 'text').execute();
  await db.schema.alterTable('remote_access_slots').addColumn('credentials_fault', 'text').execute();
  await db.schema.alterTable('remote_access_slots').addColumn('credentials_applied_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('remote_access_slots').dropColumn('credentials_applied_at').execute();
  await db.schema.alterTable('remote_access_slots').dropColumn('credentials_fault').execute();
  await db.schema.alterTable('remote_access_slots').dropColumn('credentials_state').execute();
}
