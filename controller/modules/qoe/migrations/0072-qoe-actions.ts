import type { Kysely } from 'kysely';

// Actions a manager asked of a router through the QoE routes (a POD_DISCONNECT kick), with the
// reconciler's verdict once the session is seen to end, or not by the deadline.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('qoe_actions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('nas_id', 'text', (c) => c.notNull())
    .addColumn('allocation_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text')
    .addColumn('framed_ip', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('ended_by', 'text')
    .addColumn('router_answer', 'text')
    .addColumn('command_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deadline_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  // The tenant's actions, and those waiting on one accounting session (the Stop listener).
  await db.schema
    .createIndex('qoe_actions_client_session')
    .on('qoe_actions')
    .columns(['client_id', 'session_id'])
    .execute();
  // The reconciler's RUNNING actions, oldest first.
  await db.schema
    .createIndex('qoe_actions_state')
    .on('qoe_actions')
    .columns(['state', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('qoe_actions').execute();
}
