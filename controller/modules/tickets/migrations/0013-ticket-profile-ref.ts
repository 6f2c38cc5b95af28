import type { Kysely } from 'kysely';

// What a ticket's creator named its profile by (the profile's id or its exact name), so listings
// answer `profile_id` as it was sent. Null on older rows and on tickets imported from a router:
// those list the profile's id.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('radius_tickets').addColumn('profile_ref', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('radius_tickets').dropColumn('profile_ref').execute();
}
