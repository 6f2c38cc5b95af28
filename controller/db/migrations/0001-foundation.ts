import type { Kysely } from 'kysely';

// Accounts, the licence catalogue and job leases. Timestamps are ISO text on both dialects.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'text')
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('plans')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('product_code', 'text', (c) => c.notNull().references('products.code'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('duration_days', 'integer', (c) => c.notNull())
    .addColumn('price_xof', 'bigint')
    .addColumn('max_devices', 'integer')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();

  await db.schema
    .createTable('licences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('plan_code', 'text', (c) => c.notNull().references('plans.code'))
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('granted_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('licences_client_product')
    .on('licences')
    .columns(['client_id', 'product_code', 'expires_at'])
    .execute();

  await db.schema
    .createTable('job_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('next_run_at', 'text')
    .addColumn('last_started_at', 'text')
    .addColumn('last_finished_at', 'text')
    .addColumn('last_status', 'text')
    .addColumn('last_error', 'text')
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // The catalogue is data. Only published prices are filled in; the others stay null until set.
  await db
    .insertInto('products' as never)
    .values([
      { code: 'RADIUS', name: 'RADIUS' },
      { code: 'SATELLITE_X', name: 'Satellite router licence' },
      { code: 'MONITORING', name: 'Equipment monitoring' },
      { code: 'SUIVI_PRO', name: 'Suivi Pro device plan' },
    ] as never)
    .execute();
  await db
    .insertInto('plans' as never)
    .values([
      plan('RADIUS_ANNUAL', 'RADIUS', 'RADIUS annual', 'annual', 365, null, null),
      plan('SATELLITE_X_ANNUAL', 'SATELLITE_X', 'SATELLITE_X annual', 'annual', 365, null, null),
      plan('MONITORING_MONTHLY', 'MONITORING', 'Monitoring monthly', 'monthly', 30, null, null),
      plan('SUIVI_PRO_ESSENTIEL', 'SUIVI_PRO', 'Suivi Pro Essentiel', 'monthly', 30, 3100, 10),
      plan('SUIVI_PRO_ETENDU', 'SUIVI_PRO', 'Suivi Pro Etendu', 'monthly', 30, 10000, 30),
    ] as never)
    .execute();
}

function plan(
  code: string,
  product_code: string,
  name: string,
  period: string,
  duration_days: number,
  price_xof: number | null,
  max_devices: number | null,
) {
  return { code, product_code, name, period, duration_days, price_xof, max_devices, active: 1 };
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['job_leases', 'licences', 'plans', 'products', 'accounts']) {
    await db.schema.dropTable(t).execute();
  }
}
