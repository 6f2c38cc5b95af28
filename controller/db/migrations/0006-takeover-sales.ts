import type { Kysely } from 'kysely';

// Reseller takeover from routers (which router each imported reseller came from) and the local
// sales registry repatriated from routers. Timestamps ISO text, money bigint XOF, as in 0001.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('reseller_router_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
    .addColumn('router_serial', 'text', (c) => c.notNull())
    .addColumn('allocation_id', 'text', (c) => c.notNull())
    .addColumn('router_name', 'text', (c) => c.notNull())
    .addColumn('router_balance', 'bigint', (c) => c.notNull())
    .addColumn('opening_amount', 'bigint', (c) => c.notNull())
    .addColumn('movements_imported', 'integer', (c) => c.notNull())
    .addColumn('taken_over_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('reseller_router_links_one', ['reseller_id', 'router_serial'])
    .execute();

  await db.schema
    .createTable('sales_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('allocation_id', 'text', (c) => c.notNull())
    .addColumn('entry_hash', 'text', (c) => c.notNull())
    .addColumn('script_id', 'text', (c) => c.notNull())
    .addColumn('script_no', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('sold_at', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('month', 'text')
    .addColumn('voucher_code', 'text', (c) => c.notNull())
    .addColumn('price_xof', 'bigint')
    .addColumn('client_ip', 'text')
    .addColumn('client_mac', 'text')
    .addColumn('duration_label', 'text')
    .addColumn('profile_name', 'text')
    .addColumn('comment', 'text')
    .addColumn('reseller_name', 'text')
    .addColumn('raw_name', 'text', (c) => c.notNull())
    .addColumn('owner', 'text')
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('sales_records_entry', ['client_id', 'entry_hash'])
    .execute();
  await db.schema
    .createIndex('sales_records_month')
    .on('sales_records')
    .columns(['client_id', 'month'])
    .execute();
  await db.schema
    .createIndex('sales_records_sold_at')
    .on('sales_records')
    .columns(['client_id', 'sold_at'])
    .execute();
  await db.schema
    .createIndex('sales_records_reseller')
    .on('sales_records')
    .columns(['client_id', 'reseller_name'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sales_records').execute();
  await db.schema.dropTable('reseller_router_links').execute();
}
