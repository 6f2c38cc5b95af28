import type { Kysely } from 'kysely';

// Notifications: the outbox (inbox rows and their push copy) and the app's push tokens.
// Timestamps ISO text, booleans integer 0/1, JSON as text, as in 0001.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('in_app', 'integer', (c) => c.notNull())
    .addColumn('push', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('dedup_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('read_at', 'text')
    .addColumn('push_state', 'text', (c) => c.notNull())
    .addColumn('push_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('push_sent_at', 'text')
    .addColumn('push_error', 'text')
    .addColumn('not_before', 'text')
    .addColumn('push_next_at', 'text')
    .addColumn('push_claim', 'text')
    .addColumn('push_claim_until', 'text')
    // The deduplication, and the count of a type per recipient (first-connection notifications).
    .addUniqueConstraint('notifications_dedup', ['client_id', 'type', 'dedup_key'])
    .execute();
  // The inbox, newest first.
  await db.schema
    .createIndex('notifications_inbox')
    .on('notifications')
    .columns(['client_id', 'created_at'])
    .execute();
  // The push dispatcher's scan for due rows.
  await db.schema
    .createIndex('notifications_push_due')
    .on('notifications')
    .columns(['push_state', 'push_next_at'])
    .execute();

  await db.schema
    .createTable('notification_devices')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notification_devices_client')
    .on('notification_devices')
    .columns(['client_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('notification_devices').execute();
  await db.schema.dropTable('notifications').execute();
}
