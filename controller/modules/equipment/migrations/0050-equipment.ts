import type { Kysely } from 'kysely';

// Client devices behind routers. The dst-nat port is unique per router in the database, so two
// concurrent creations can never be given the same forward (the loser retries with the next port).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('equipment_devices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('allocation_id', 'text', (c) => c.notNull())
    .addColumn('router_serial', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('device_type', 'text', (c) => c.notNull())
    .addColumn('lan_ip', 'text', (c) => c.notNull())
    .addColumn('mac_address', 'text')
    .addColumn('vendor', 'text')
    .addColumn('vendor_logo', 'text', (c) => c.notNull())
    .addColumn('service_protocol', 'text', (c) => c.notNull())
    .addColumn('service_port', 'integer', (c) => c.notNull())
    .addColumn('dstnat_port', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('pending_reason', 'text')
    .addColumn('nat_managed_by', 'text', (c) => c.notNull())
    .addColumn('monitored', 'integer', (c) => c.notNull())
    .addColumn('online', 'integer')
    .addColumn('online_changed_at', 'text')
    .addColumn('down_since', 'text')
    .addColumn('down_step', 'integer', (c) => c.notNull())
    .addColumn('needs_revalidation', 'integer', (c) => c.notNull())
    .addColumn('hardware_reason', 'text')
    .addColumn('src_address', 'text')
    .addColumn('lease_static', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('equipment_port_per_router')
    .on('equipment_devices')
    .columns(['allocation_id', 'dstnat_port'])
    .unique()
    .execute();
  await db.schema
    .createIndex('equipment_devices_client')
    .on('equipment_devices')
    .columns(['client_id', 'allocation_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('equipment_devices').execute();
}
