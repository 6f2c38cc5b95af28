import type { Kysely } from 'kysely';

// The ticket list indexes end with `status`, so a page far into a tenant's tickets is found by
// walking the index alone (the status filter included) and only that page's rows are read: with
// offset pagination on 1,000,000 tickets, skipping 500,000 entries no longer reads 500,000 rows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('radius_tickets_client_created_code').execute();
  await db.schema.dropIndex('radius_tickets_client_reseller_created_code').execute();
  await db.schema
    .createIndex('radius_tickets_list')
    .on('radius_tickets')
    .columns(['client_id', 'created_at', 'code', 'status'])
    .execute();
  await db.schema
    .createIndex('radius_tickets_list_reseller')
    .on('radius_tickets')
    .columns(['client_id', 'reseller_name', 'created_at', 'code', 'status'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('radius_tickets_list').execute();
  await db.schema.dropIndex('radius_tickets_list_reseller').execute();
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
