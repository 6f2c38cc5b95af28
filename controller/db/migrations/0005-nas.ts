import { sql, type Kysely } from 'kysely';

// RADIUS routers (NAS) of each client and the per-router enrolment deployment lock.
// Timestamps ISO text, as in 0001. A deleted NAS stays as a row (status DELETED) so sessions and
// logs that name it keep pointing at something; the partial unique indexes ignore deleted rows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('nas')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('allocation_id', 'text', (c) => c.notNull().references('allocations.id'))
    .addColumn('nasname', 'text', (c) => c.notNull())
    .addColumn('shortname', 'text', (c) => c.notNull())
    // The RADIUS shared secret: RADIUS needs it in clear to check authenticators.
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('apply_mode', 'text', (c) => c.notNull())
    .addColumn('router_serial', 'text', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('activated_at', 'text')
    .addColumn('verified_at', 'text')
    .addColumn('deleted_at', 'text')
    .execute();
  // The database itself refuses a second PRIMARY of a client, whatever the race.
  await db.schema
    .createIndex('nas_one_primary')
    .on('nas')
    .column('client_id')
    .unique()
    .where(sql.raw<boolean>(`role = 'PRIMARY' and status <> 'DELETED'`))
    .execute();
  // One live NAS per router slot: a second enrolment of the same router reuses it.
  await db.schema
    .createIndex('nas_one_per_allocation')
    .on('nas')
    .column('allocation_id')
    .unique()
    .where(sql.raw<boolean>(`status <> 'DELETED'`))
    .execute();
  // The RADIUS lookup (source address or relay identity → NAS).
  await db.schema
    .createIndex('nas_nasname')
    .on('nas')
    .column('nasname')
    .unique()
    .where(sql.raw<boolean>(`status <> 'DELETED'`))
    .execute();
  await db.schema.createIndex('nas_client').on('nas').columns(['client_id', 'status']).execute();

  // At most one row per router: taking the lock is one conditional upsert (insert, or take over
  // a row whose expiry has passed), so exactly one of two racing enrolments wins on both dialects.
  await db.schema
    .createTable('nas_deployments')
    .addColumn('allocation_id', 'text', (c) => c.primaryKey().references('allocations.id'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('nas_id', 'text')
    // 1 when this deployment (or the cancelled one it took over) created the NAS: a failure then
    // removes it; a NAS that existed before is left as it was.
    .addColumn('nas_created', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('nas_deployments_expires').on('nas_deployments').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['nas_deployments', 'nas']) await db.schema.dropTable(t).execute();
}
