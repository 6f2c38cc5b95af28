import { sql, type Kysely } from 'kysely';

// The queue's indexes cover open commands only (partial indexes): a command is written into them
// when it is stored and leaves them when it ends, so they hold what is in flight (a few thousand
// rows at most) and stay in memory, however many final commands the retention keeps (millions at
// ten thousand routers). Before, both indexes held every command kept, and each state change moved
// its entries in both. Final commands are found for pruning by an index on the deadline alone,
// which never changes after the insert and grows at its right edge.
// The condition is written out (a migration does not follow later code); the queries that use these
// indexes hold the very same term (open-states.ts).
const OPEN = sql.raw("state in ('QUEUED', 'SENT', 'ACKED')");

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('agent_commands_allocation_state').execute();
  await db.schema.dropIndex('agent_commands_state_deadline').execute();
  await sql`create index agent_commands_open_allocation on agent_commands (allocation_id, created_at)
    where ${OPEN}`.execute(db);
  await sql`create index agent_commands_open_state_deadline on agent_commands (state, deadline)
    where ${OPEN}`.execute(db);
  await db.schema.createIndex('agent_commands_deadline').on('agent_commands').column('deadline').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('agent_commands_deadline').execute();
  await db.schema.dropIndex('agent_commands_open_state_deadline').execute();
  await db.schema.dropIndex('agent_commands_open_allocation').execute();
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
}
