import type { Kysely } from 'kysely';

// The WAN usage store: last counters per router and bytes per router-hour (filed under the
// router's local day), shared by the bandwidth programme and network-quality monitoring.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_routers')
    .addColumn('allocation_id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('time_zone', 'text')
    .addColumn('last_at', 'text')
    .addColumn('last_rx_bytes', 'bigint')
    .addColumn('last_tx_bytes', 'bigint')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('usage_routers_client')
    .on('usage_routers')
    .columns(['client_id', 'allocation_id'])
    .execute();
  await db.schema
    .createTable('usage_hours')
    .addColumn('allocation_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('local_day', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_hours_pk', ['allocation_id', 'hour'])
    .execute();
  await db.schema
    .createIndex('usage_hours_client_day')
    .on('usage_hours')
    .columns(['client_id', 'allocation_id', 'local_day'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_hours').execute();
  await db.schema.dropTable('usage_routers').execute();
}
