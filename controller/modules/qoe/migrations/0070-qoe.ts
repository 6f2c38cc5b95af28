import type { Kysely } from 'kysely';

// Network-quality monitoring: bridge tokens per NAS, telemetry points, usage alerts; and its three
// push switches in the preferences row it shares with the bandwidth programme.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('qoe_bridge_tokens')
    .addColumn('nas_id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('allocation_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('issued_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('qoe_bridge_tokens_client')
    .on('qoe_bridge_tokens')
    .columns(['client_id', 'nas_id'])
    .execute();
  await db.schema
    .createTable('qoe_points')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('allocation_id', 'text', (c) => c.notNull())
    .addColumn('observed_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('rtt_ms', 'double precision')
    .addColumn('jitter_ms', 'double precision')
    .addColumn('packet_loss_pct', 'double precision')
    .addColumn('tx_bps', 'double precision')
    .addColumn('rx_bps', 'double precision')
    .addColumn('wan_rx_bytes', 'bigint')
    .addColumn('wan_tx_bytes', 'bigint')
    .addColumn('top_consumers', 'text', (c) => c.notNull())
    .addUniqueConstraint('qoe_points_nas_observed', ['nas_id', 'observed_at'])
    .execute();
  await db.schema
    .createIndex('qoe_points_client_nas')
    .on('qoe_points')
    .columns(['client_id', 'nas_id', 'observed_at'])
    .execute();
  await db.schema
    .createTable('qoe_alerts')
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('raised_at', 'text', (c) => c.notNull())
    .addColumn('pushed', 'integer', (c) => c.notNull())
    .addColumn('usage', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('qoe_alerts_pk', ['nas_id', 'type', 'day'])
    .execute();
  await db.schema.createIndex('qoe_alerts_client').on('qoe_alerts').columns(['client_id', 'day']).execute();
  for (const column of ['urgent_push', 'daily_report_push', 'usage_alert_push'])
    await db.schema
      .alterTable('bandwidth_preferences')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['urgent_push', 'daily_report_push', 'usage_alert_push'])
    await db.schema.alterTable('bandwidth_preferences').dropColumn(column).execute();
  await db.schema.dropTable('qoe_alerts').execute();
  await db.schema.dropTable('qoe_points').execute();
  await db.schema.dropTable('qoe_bridge_tokens').execute();
}
