import { sql, type Kysely } from 'kysely';

// Resellers in RADIUS mode: identity and caps, tokens (hashed), and the immutable ledger.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('resellers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('phone', 'text')
    .addColumn('email', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('commission_rate', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('max_batch_size', 'integer', (c) => c.notNull())
    .addColumn('max_users_total', 'integer', (c) => c.notNull())
    .addColumn('tickets_issued', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('total_sales', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('admin_message', 'text')
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'text')
    .addColumn('created_on_router_at', 'text')
    .addColumn('imported_from_router_at', 'text')
    .addColumn('desktop_allow_login', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('desktop_router_group', 'text')
    .addColumn('desktop_password_hash', 'text')
    .addColumn('desktop_updated_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('resellers_client_username', ['client_id', 'username'])
    .addCheckConstraint('resellers_balance_not_negative', sql`balance >= 0`)
    .execute();

  await db.schema
    .createTable('reseller_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('reseller_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('reseller_id', 'text', (c) => c.notNull().references('resellers.id'))
    .addColumn('line_no', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('balance_after', 'bigint', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('reseller_ledger_line', ['reseller_id', 'line_no'])
    .addUniqueConstraint('reseller_ledger_key', ['reseller_id', 'idempotency_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['reseller_ledger', 'reseller_tokens', 'resellers']) await db.schema.dropTable(t).execute();
}
