import type { Kysely } from 'kysely';

// The agent link: allocations (router slots and their agents), the durable command queue and the
// agents' reports. Timestamps ISO text, booleans 0/1, JSON as text, as in 0001.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('allocations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('label', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('enrol_code_hash', 'text', (c) => c.unique())
    .addColumn('enrol_code_expires_at', 'text')
    .addColumn('enrol_code_used_at', 'text')
    .addColumn('agent_id', 'text', (c) => c.unique())
    .addColumn('agent_public_key', 'text')
    .addColumn('agent_version', 'text')
    .addColumn('enrolled_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('link_state', 'text', (c) => c.notNull().defaultTo('DISCONNECTED'))
    .addColumn('link_instance', 'text')
    .addColumn('link_session', 'text')
    .addColumn('last_seen_at', 'text')
    .addColumn('router_serial', 'text')
    .addColumn('router_identity', 'text')
    .addColumn('router_model', 'text')
    .addColumn('routeros_version', 'text')
    .addColumn('architecture', 'text')
    .addColumn('board_name', 'text')
    .addColumn('free_hdd_bytes', 'bigint')
    .addColumn('total_hdd_bytes', 'bigint')
    .addColumn('facts_updated_at', 'text')
    .execute();
  await db.schema
    .createIndex('allocations_client')
    .on('allocations')
    .columns(['client_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('allocations_link_instance')
    .on('allocations')
    .column('link_instance')
    .execute();
  await db.schema
    .createIndex('allocations_router_serial')
    .on('allocations')
    .column('router_serial')
    .execute();

  await db.schema
    .createTable('agent_commands')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('allocation_id', 'text', (c) => c.notNull().references('allocations.id'))
    // Copied from the allocation so every read is scoped by tenant without a join.
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('deadline', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('acked_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('output', 'text')
    .addColumn('fault_code', 'text')
    .addColumn('fault_message', 'text')
    .addColumn('fault_retryable', 'integer')
    .execute();
  await db.schema
    .createIndex('agent_commands_allocation_state')
    .on('agent_commands')
    .columns(['allocation_id', 'state', 'created_at'])
    .execute();
  await db.schema
    .createIndex('agent_commands_state_deadline')
    .on('agent_commands')
    .columns(['state', 'deadline'])
    .execute();

  await db.schema
    .createTable('agent_reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('allocation_id', 'text', (c) => c.notNull().references('allocations.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agent_reports_allocation_kind_at')
    .on('agent_reports')
    .columns(['allocation_id', 'kind', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['agent_reports', 'agent_commands', 'allocations']) {
    await db.schema.dropTable(t).execute();
  }
}
