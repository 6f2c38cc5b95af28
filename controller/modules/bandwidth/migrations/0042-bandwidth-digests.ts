import type { Kysely } from 'kysely';

// What a pass needs to find an unchanged router with one read: the digest of the params last
// applied and of the router's marked objects as read after it, and the cap another module imposed
// at that pass (kept when that module cannot answer).
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [column, type] of [
    ['params_digest', 'text'],
    ['router_digest', 'text'],
    ['imposed_cap_mbps', 'double precision'],
  ] as const) {
    await db.schema.alterTable('bandwidth_programmes').addColumn(column, type).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['params_digest', 'router_digest', 'imposed_cap_mbps']) {
    await db.schema.alterTable('bandwidth_programmes').dropColumn(column).execute();
  }
}
