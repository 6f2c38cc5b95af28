import { sql, type Kysely } from 'kysely';

// The ticket shop (docs/api/shop.md). Every table starts its keys with client_id.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('shop_stores')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('display_name', 'text')
    .addColumn('logo_url', 'text')
    .addColumn('store_slug', 'text', (c) => c.unique())
    .addColumn('config_json', 'text', (c) => c.notNull())
    .addColumn('merchant_key_sealed', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('shop_profiles')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('price_xof', 'bigint')
    .addColumn('data_limit', 'text')
    .addColumn('time_limit', 'text')
    .addColumn('validity', 'text')
    .addColumn('display_name', 'text')
    .addColumn('is_active', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('shop_profiles_pk', ['client_id', 'name'])
    .execute();

  await db.schema
    .createTable('shop_stock')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('profile_name', 'text', (c) => c.notNull())
    .addColumn('ticket_code', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sale_reference', 'text')
    .addColumn('sold_at', 'text')
    .execute();
  // Unsold stock per profile: readiness counts it, a sale takes its oldest ticket.
  await db.schema
    .createIndex('shop_stock_unsold')
    .on('shop_stock')
    .columns(['client_id', 'sold_at', 'profile_name', 'id'])
    .execute();

  await db.schema
    .createTable('shop_router_reads')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('allocation_id', 'text', (c) => c.notNull())
    .addColumn('profiles_json', 'text', (c) => c.notNull())
    .addColumn('read_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('shop_router_reads_pk', ['client_id', 'allocation_id'])
    .execute();

  await db.schema
    .createTable('shop_wallets')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('available_xof', 'bigint', (c) => c.notNull())
    .addColumn('pending_xof', 'bigint', (c) => c.notNull())
    .addColumn('sales_count', 'bigint', (c) => c.notNull())
    .addColumn('gross_xof', 'bigint', (c) => c.notNull())
    .addColumn('platform_xof', 'bigint', (c) => c.notNull())
    .addColumn('merchant_xof', 'bigint', (c) => c.notNull())
    .addColumn('withdrawn_xof', 'bigint', (c) => c.notNull())
    .addColumn('last_collected_by', 'text')
    .addColumn('payout_provider', 'text')
    .addColumn('payout_dashboard_url', 'text')
    .addColumn('withdrawals_enabled', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('shop_wallets_available_not_negative', sql`available_xof >= 0`)
    .addCheckConstraint('shop_wallets_pending_not_negative', sql`pending_xof >= 0`)
    .execute();

  await db.schema
    .createTable('shop_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('balance_after', 'bigint', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('shop_ledger_key', ['client_id', 'idempotency_key'])
    .execute();

  await db.schema
    .createTable('shop_sales')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('amount_xof', 'bigint', (c) => c.notNull())
    .addColumn('collected_by', 'text', (c) => c.notNull())
    .addColumn('provider', 'text')
    .addColumn('profile_name', 'text')
    .addColumn('ticket_code', 'text')
    .addColumn('sold_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('shop_sales_reference', ['client_id', 'reference'])
    .execute();

  await db.schema
    .createTable('shop_daily_totals')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('sales_count', 'bigint', (c) => c.notNull())
    .addColumn('gross_xof', 'bigint', (c) => c.notNull())
    .addColumn('platform_xof', 'bigint', (c) => c.notNull())
    .addColumn('merchant_xof', 'bigint', (c) => c.notNull())
    .addColumn('withdrawn_xof', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('shop_daily_totals_pk', ['client_id', 'day'])
    .execute();

  await db.schema
    .createTable('shop_withdrawals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('amount_xof', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('shop_withdrawals_key', ['client_id', 'idempotency_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'shop_withdrawals',
    'shop_daily_totals',
    'shop_sales',
    'shop_ledger',
    'shop_wallets',
    'shop_router_reads',
    'shop_stock',
    'shop_profiles',
    'shop_stores',
  ])
    await db.schema.dropTable(t).execute();
}
