import type { Kysely } from 'kysely';

// Every read of a NAS's points names the NAS (and its client), so the unique (nas_id, observed_at)
// key serves them all: a NAS belongs to one client, and the client is checked on the row found.
// The (client_id, nas_id, observed_at) index was one more B-tree written per stored point.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('qoe_points_client_nas').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('qoe_points_client_nas')
    .on('qoe_points')
    .columns(['client_id', 'nas_id', 'observed_at'])
    .execute();
}
