import type { Kysely } from 'kysely';

// Where the allocation's agent takes the router's RADIUS, as its latest facts report said: the
// agent's address as the router sees it and the relay's ports. Null until an agent reports a relay
// (enrolment then falls back to the controller-wide relay address).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('allocations').addColumn('radius_relay_address', 'text').execute();
  await db.schema.alterTable('allocations').addColumn('radius_relay_auth_port', 'integer').execute();
  await db.schema.alterTable('allocations').addColumn('radius_relay_acct_port', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('allocations').dropColumn('radius_relay_acct_port').execute();
  await db.schema.alterTable('allocations').dropColumn('radius_relay_auth_port').execute();
  await db.schema.alterTable('allocations').dropColumn('radius_relay_address').execute();
}
