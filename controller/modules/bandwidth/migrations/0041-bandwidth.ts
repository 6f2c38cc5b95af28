import type { Kysely } from 'kysely';

// The bandwidth programme: one row per router, its revisions, the journal, user throttles, the
// days the cap was on, and the last alert of each kind. Timestamps ISO text, booleans 0/1, lists JSON.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bandwidth_programmes')
    .addColumn('nas_id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('allocation_id', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('limit_mbps', 'double precision', (c) => c.notNull())
    .addColumn('essential_share', 'double precision', (c) => c.notNull())
    .addColumn('essential_classes', 'text', (c) => c.notNull())
    .addColumn('scheduled_dates', 'text', (c) => c.notNull())
    .addColumn('schedule_weekdays', 'text', (c) => c.notNull())
    .addColumn('daily_quota_gb', 'double precision')
    .addColumn('monthly_quota_gb', 'double precision')
    .addColumn('user_daily_quota_gb', 'double precision')
    .addColumn('user_limit_mbps', 'double precision')
    .addColumn('max_throttled_users', 'integer', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('desired_state', 'text', (c) => c.notNull())
    .addColumn('observed_state', 'text')
    .addColumn('motif', 'text')
    .addColumn('peak_day', 'text')
    .addColumn('checked_at', 'text')
    .addColumn('in_error', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('cleanup_pending', 'integer', (c) => c.notNull())
    .addColumn('pass_token', 'text')
    .addColumn('pass_until', 'text')
    .addColumn('last_pass_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('bandwidth_programmes_client')
    .on('bandwidth_programmes')
    .columns(['client_id', 'nas_id'])
    .execute();
  // The pass picks the routers that waited longest.
  await db.schema
    .createIndex('bandwidth_programmes_pass')
    .on('bandwidth_programmes')
    .columns(['last_pass_at', 'nas_id'])
    .execute();

  await db.schema
    .createTable('bandwidth_revisions')
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('programme', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bandwidth_revisions_pk', ['nas_id', 'revision'])
    .execute();
  await db.schema
    .createIndex('bandwidth_revisions_client')
    .on('bandwidth_revisions')
    .columns(['client_id', 'nas_id', 'revision'])
    .execute();

  await db.schema
    .createTable('bandwidth_activity')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('texte', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('bandwidth_activity_client')
    .on('bandwidth_activity')
    .columns(['client_id', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('bandwidth_activity_nas')
    .on('bandwidth_activity')
    .columns(['client_id', 'nas_id', 'at', 'id'])
    .execute();
  // The fleet's 24-hour split reads the latest events of every client.
  await db.schema
    .createIndex('bandwidth_activity_at')
    .on('bandwidth_activity')
    .columns(['at', 'id'])
    .execute();

  await db.schema
    .createTable('bandwidth_throttles')
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('limit_mbps', 'double precision', (c) => c.notNull())
    .addColumn('framed_ips', 'text', (c) => c.notNull())
    .addColumn('observed_bytes', 'bigint', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'text', (c) => c.notNull())
    .addColumn('sources', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bandwidth_throttles_pk', ['nas_id', 'username'])
    .execute();
  await db.schema
    .createIndex('bandwidth_throttles_client')
    .on('bandwidth_throttles')
    .columns(['client_id', 'nas_id'])
    .execute();

  await db.schema
    .createTable('bandwidth_capped_days')
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addPrimaryKeyConstraint('bandwidth_capped_days_pk', ['nas_id', 'day'])
    .execute();
  await db.schema
    .createIndex('bandwidth_capped_days_client')
    .on('bandwidth_capped_days')
    .columns(['client_id', 'nas_id', 'day'])
    .execute();

  await db.schema
    .createTable('bandwidth_alerts')
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bandwidth_alerts_pk', ['nas_id', 'kind'])
    .execute();
  await db.schema
    .createIndex('bandwidth_alerts_client')
    .on('bandwidth_alerts')
    .columns(['client_id', 'nas_id'])
    .execute();
  await createPreferences(db);
}

// The manager's switch for these notifications and quiet hours (router time).
async function createPreferences(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bandwidth_preferences')
    .addColumn('client_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('bandwidth_push', 'integer', (c) => c.notNull())
    .addColumn('quiet_start', 'integer')
    .addColumn('quiet_end', 'integer')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'bandwidth_preferences',
    'bandwidth_alerts',
    'bandwidth_capped_days',
    'bandwidth_throttles',
    'bandwidth_activity',
    'bandwidth_revisions',
    'bandwidth_programmes',
  ])
    await db.schema.dropTable(t).execute();
}
