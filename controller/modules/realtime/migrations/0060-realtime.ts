import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('realtime_channels')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('epoch', 'text', (c) => c.notNull())
    .addColumn('top_offset', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('realtime_publications')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('realtime_publications_pk', ['channel', 'seq'])
    .execute();
  await db.schema
    .createTable('realtime_presence')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('realtime_presence_pk', ['channel', 'client_id'])
    .execute();
  await db.schema
    .createIndex('realtime_presence_instance')
    .on('realtime_presence')
    .column('instance_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('realtime_presence').execute();
  await db.schema.dropTable('realtime_publications').execute();
  await db.schema.dropTable('realtime_channels').execute();
}
