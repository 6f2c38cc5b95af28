import type { Kysely } from 'kysely';

// RADIUS: hotspot profiles and tickets (vouchers), accounting sessions and the authentication log.
// Timestamps ISO text, money integer XOF, byte counters bigint, as in 0001.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('radius_profiles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rate_limit', 'text')
    .addColumn('data_limit_bytes', 'bigint')
    .addColumn('time_limit_seconds', 'bigint')
    .addColumn('validity_seconds', 'bigint')
    .addColumn('price_xof', 'bigint')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('radius_profiles_client_name', ['client_id', 'name'])
    .execute();

  await db.schema
    .createTable('radius_tickets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('password', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull().references('radius_profiles.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('reseller_name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('first_nas_id', 'text')
    .addColumn('bytes_used', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('seconds_used', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'text')
    // The authentication lookup (tenant, User-Name) is this index.
    .addUniqueConstraint('radius_tickets_client_code', ['client_id', 'code'])
    .execute();
  // Lists walk this newest first and filter the status. No index holds the status: a status change
  // on the authentication hot path would move an index entry, doubling the cost of the write.
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

  await db.schema
    .createTable('radius_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('ticket_code', 'text', (c) => c.notNull())
    .addColumn('acct_session_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('stopped_at', 'text')
    .addColumn('input_octets', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('input_gigawords', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('output_octets', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('output_gigawords', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('total_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('session_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('terminate_cause', 'text')
    .addColumn('framed_ip', 'text')
    .addColumn('calling_station_id', 'text')
    .addUniqueConstraint('radius_sessions_nas_session', ['nas_id', 'acct_session_id'])
    .execute();
  await db.schema
    .createIndex('radius_sessions_client_ticket')
    .on('radius_sessions')
    .columns(['client_id', 'ticket_code'])
    .execute();
  // Open sessions (stale-session job, sessions open per NAS). Not updated_at: every interim report
  // would move the entry.
  await db.schema
    .createIndex('radius_sessions_open')
    .on('radius_sessions')
    .columns(['stopped_at', 'nas_id'])
    .execute();

  // Append-only and written on every authentication: no primary key index to maintain.
  await db.schema
    .createTable('radius_auth_log')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('calling_station_id', 'text')
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('radius_auth_log_client_at')
    .on('radius_auth_log')
    .columns(['client_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['radius_auth_log', 'radius_sessions', 'radius_tickets', 'radius_profiles']) {
    await db.schema.dropTable(t).execute();
  }
}
