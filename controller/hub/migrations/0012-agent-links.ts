import { sql, type Kysely } from 'kysely';

// The agent link gets a table of its own, written only by the hub: which instance and which
// connection hold each allocation's link, when it was last seen and which agent version spoke on it.
// The values move over from `allocations`, whose link columns and their index are then dropped
// (the index first: SQLite refuses to drop an indexed column).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agent_links')
    .addColumn('allocation_id', 'text', (c) => c.primaryKey().references('allocations.id'))
    .addColumn('link_state', 'text', (c) => c.notNull().defaultTo('DISCONNECTED'))
    .addColumn('link_instance', 'text')
    .addColumn('link_session', 'text')
    .addColumn('last_seen_at', 'text')
    .addColumn('agent_version', 'text')
    .execute();
  await db.schema.createIndex('agent_links_instance').on('agent_links').column('link_instance').execute();
  await sql`
    insert into agent_links (allocation_id, link_state, link_instance, link_session, last_seen_at, agent_version)
    select id, link_state, link_instance, link_session, last_seen_at, agent_version from allocations
  `.execute(db);
  await db.schema.dropIndex('allocations_link_instance').execute();
  for (const column of ['link_state', 'link_instance', 'link_session', 'last_seen_at', 'agent_version']) {
    await db.schema.alterTable('allocations').dropColumn(column).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('allocations')
    .addColumn('link_state', 'text', (c) => c.notNull().defaultTo('DISCONNECTED'))
    .execute();
  for (const column of ['link_instance', 'link_session', 'last_seen_at', 'agent_version']) {
    await db.schema.alterTable('allocations').addColumn(column, 'text').execute();
  }
  await sql`
    update allocations set
      link_state = coalesce((select l.link_state from agent_links l where l.allocation_id = allocations.id), 'DISCONNECTED'),
      link_instance = (select l.link_instance from agent_links l where l.allocation_id = allocations.id),
      link_session = (select l.link_session from agent_links l where l.allocation_id = allocations.id),
      last_seen_at = (select l.last_seen_at from agent_links l where l.allocation_id = allocations.id),
      agent_version = (select l.agent_version from agent_links l where l.allocation_id = allocations.id)
  `.execute(db);
  await db.schema
    .createIndex('allocations_link_instance')
    .on('allocations')
    .column('link_instance')
    .execute();
  await db.schema.dropTable('agent_links').execute();
}
