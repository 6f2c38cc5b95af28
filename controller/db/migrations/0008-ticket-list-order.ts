import type { Kysely } from 'kysely';

// Ticket lists are ordered newest first, then by code (both descending), so one index walked
// backwards yields a page without sorting: on 1,000,000 tickets a 1,000-item page stays a range
// read on both dialects. The old indexes stopped at created_at and left a sort of every row of
// the tenant (all tickets of a batch share created_at).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('radius_tickets_client_created').execute();
  await db.schema.dropIndex('radius_tickets_client_reseller').execute();
  await db.schema
    .createIndex('radius_tickets_client_created_code')
    .on('radius_tickets')
    .columns(['client_id', 'created_at', 'code'])
    .execute();
  await db.schema
    .createIndex('radius_tickets_client_reseller_created_code')
    .on('radius_tickets')
    .columns(['client_id', 'reseller_name', 'created_at', 'code'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('radius_tickets_client_created_code').execute();
  await db.schema.dropIndex('radius_tickets_client_reseller_created_code').execute();
  await db.schema
    .createIndex('radius_tickets_client_created')
    .on('radius_tickets')
    .columns(['client_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('radius_tickets_client_reseller')
    .on('radius_tickets')
    .columns(['client_id', 'reseller_name', 'created_at'])
    .execute();
}
