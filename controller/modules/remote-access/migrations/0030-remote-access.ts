import type { Kysely } from 'kysely';

// Remote-access transport: slots, key profiles, channels and management probes. Timestamps ISO
// text, booleans 0/1; every secret column holds a sealed value, never the secret.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('remote_access_slots')
    .addColumn('allocation_id', 'text', (c) => c.primaryKey().references('allocations.id'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('routeros_version', 'text', (c) => c.notNull())
    .addColumn('active_channel_id', 'text')
    .addColumn('active_reason', 'text')
    .addColumn('credentials_sealed', 'text')
    .addColumn('credentials_updated_at', 'text')
    .addColumn('rescue_state', 'text')
    .addColumn('rescue_profile_sealed', 'text')
    .addColumn('rescue_updated_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('remote_access_slots_client')
    .on('remote_access_slots')
    .columns(['client_id', 'allocation_id'])
    .execute();

  await db.schema
    .createTable('remote_access_profiles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('allocation_id', 'text', (c) => c.notNull().references('allocations.id'))
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text')
    .addColumn('private_key_sealed', 'text')
    .addColumn('preshared_key_sealed', 'text')
    .addColumn('username', 'text')
    .addColumn('password_sealed', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('remote_access_profiles_client')
    .on('remote_access_profiles')
    .columns(['client_id', 'allocation_id', 'protocol'])
    .execute();

  await db.schema
    .createTable('remote_access_channels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('allocation_id', 'text', (c) => c.notNull().references('allocations.id'))
    .addColumn('profile_id', 'text', (c) => c.notNull().references('remote_access_profiles.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('address_index', 'integer', (c) => c.notNull().unique())
    .addColumn('tunnel_address', 'text', (c) => c.notNull())
    .addColumn('server_address', 'text', (c) => c.notNull())
    .addColumn('endpoint_host', 'text', (c) => c.notNull())
    .addColumn('endpoint_port', 'integer', (c) => c.notNull())
    .addColumn('interface_name', 'text', (c) => c.notNull())
    .addColumn('last_data_plane_confirmed_at', 'text')
    .addColumn('last_management_probe_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('remote_access_channels_client')
    .on('remote_access_channels')
    .columns(['client_id', 'allocation_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('remote_access_attempts')
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('allocation_id', 'text', (c) => c.notNull().references('allocations.id'))
    .addColumn('request_sha256', 'text', (c) => c.notNull())
    .addColumn('candidate_channel_id', 'text', (c) => c.notNull())
    .addColumn('previous_channel_id', 'text')
    .addColumn('requested_transport', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reachable', 'integer', (c) => c.notNull())
    .addColumn('data_plane_confirmed', 'integer', (c) => c.notNull())
    .addColumn('observed_transport', 'text')
    .addColumn('retire_previous_allowed', 'integer', (c) => c.notNull())
    .addColumn('refusal', 'text')
    .addColumn('previous_retired', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('remote_access_attempts_pk', ['client_id', 'operation_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('remote_access_attempts').execute();
  await db.schema.dropTable('remote_access_channels').execute();
  await db.schema.dropTable('remote_access_profiles').execute();
  await db.schema.dropTable('remote_access_slots').execute();
}
