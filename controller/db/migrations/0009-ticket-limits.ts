import type { Kysely } from 'kysely';

// Per-ticket limits: a router's local hotspot user often carries its own limit-uptime and
// limit-bytes-total (voucher generators set them per user; the profile only gives the rate). When
// not null they replace the profile's limit for that ticket; null leaves the profile's limit (null
// there too: unlimited). Bigint as the other byte and second counters (0003).
// Usage bases: what a ticket had consumed before the controller counted it (a router's local user
// taken over by a migration); its usage is the base plus its accounting sessions.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('radius_tickets').addColumn('data_limit_bytes', 'bigint').execute();
  await db.schema.alterTable('radius_tickets').addColumn('time_limit_seconds', 'bigint').execute();
  await db.schema
    .alterTable('radius_tickets')
    .addColumn('bytes_base', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('radius_tickets')
    .addColumn('seconds_base', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('radius_tickets').dropColumn('seconds_base').execute();
  await db.schema.alterTable('radius_tickets').dropColumn('bytes_base').execute();
  await db.schema.alterTable('radius_tickets').dropColumn('time_limit_seconds').execute();
  await db.schema.alterTable('radius_tickets').dropColumn('data_limit_bytes').execute();
}
