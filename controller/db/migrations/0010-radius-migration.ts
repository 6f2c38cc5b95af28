import type { Kysely } from 'kysely';

// Router migrations to RADIUS (one row per router slot) and the backups they took.
// Timestamps ISO text, booleans integer 0/1, JSON and the backup file as text, as in 0001.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('radius_migrations')
    .addColumn('allocation_id', 'text', (c) => c.primaryKey().references('allocations.id'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('nas_id', 'text')
    .addColumn('statut', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('retirer_local', 'integer', (c) => c.notNull())
    .addColumn('backup_id', 'text')
    .addColumn('comptes', 'integer')
    .addColumn('importes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('retires', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('etapes', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('switched_at', 'text')
    .addColumn('armed_at', 'text')
    .addColumn('confirmed_at', 'text')
    .addColumn('first_user', 'text')
    .addColumn('first_auth_at', 'text')
    .addColumn('returned_at', 'text')
    .addColumn('run_token', 'text')
    .addColumn('run_until', 'text')
    .execute();
  // The watch job's scan of armed migrations.
  await db.schema.createIndex('radius_migrations_statut').on('radius_migrations').column('statut').execute();

  await db.schema
    .createTable('radius_migration_backups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('allocation_id', 'text', (c) => c.notNull().references('allocations.id'))
    .addColumn('router_serial', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('file_sha256', 'text', (c) => c.notNull())
    .addColumn('file_base64', 'text', (c) => c.notNull())
    .addColumn('accounts_json', 'text', (c) => c.notNull())
    .addColumn('accounts_sha256', 'text', (c) => c.notNull())
    .addColumn('accounts_count', 'integer', (c) => c.notNull())
    .addColumn('profiles_count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('radius_migration_backups_allocation')
    .on('radius_migration_backups')
    .columns(['allocation_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('radius_migration_backups').execute();
  await db.schema.dropTable('radius_migrations').execute();
}
