import type { CompiledQuery } from 'kysely';
import type { Db } from '../../db/database.js';
import { PreparedStatement, slot } from '../../db/prepared-statement.js';
import type { EquipmentDevicesTable } from './tables.js';

/** What the relay checks and needs of a device, read on every relayed request. */
const RELAY_COLUMNS = [
  'status',
  'needs_revalidation',
  'hardware_reason',
  'allocation_id',
  'router_serial',
  'dstnat_port',
  'lan_ip',
  'service_port',
  'service_protocol',
] as const satisfies readonly (keyof EquipmentDevicesTable)[];

export type RelayRow = Pick<EquipmentDevicesTable, (typeof RELAY_COLUMNS)[number]>;

// Compiled once: building and compiling the query cost more than SQLite takes to answer it.
export type RelayStatement = PreparedStatement<RelayRow>;

export const relayRowStatement = (db: Db): RelayStatement =>
  new PreparedStatement(
    db
      .selectFrom('equipment_devices')
      .select(RELAY_COLUMNS)
      .where('client_id', '=', slot(0))
      .where('id', '=', slot(1))
      .compile() as CompiledQuery<RelayRow>,
  );

export const insertDevice = (db: Db, row: EquipmentDevicesTable) =>
  db.insertInto('equipment_devices').values(row).execute();

export const findDevice = (db: Db, clientId: string, id: string) =>
  db
    .selectFrom('equipment_devices')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .executeTakeFirst();

export const listDevices = (db: Db, clientId: string) =>
  db
    .selectFrom('equipment_devices')
    .selectAll()
    .where('client_id', '=', clientId)
    .orderBy('allocation_id')
    .orderBy('created_at')
    .execute();

export const listForAllocation = (db: Db, clientId: string, allocationId: string) =>
  db
    .selectFrom('equipment_devices')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .orderBy('created_at')
    .execute();

export const usedPorts = async (db: Db, allocationId: string): Promise<Set<number>> =>
  new Set(
    (
      await db
        .selectFrom('equipment_devices')
        .select('dstnat_port')
        .where('allocation_id', '=', allocationId)
        .execute()
    ).map((r) => r.dstnat_port),
  );

export const countDevices = async (db: Db, clientId: string): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('equipment_devices')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('client_id', '=', clientId)
        .executeTakeFirstOrThrow()
    ).n,
  );

export const updateDevice = (
  db: Db,
  clientId: string,
  id: string,
  patch: Partial<Omit<EquipmentDevicesTable, 'id' | 'client_id'>>,
) =>
  db
    .updateTable('equipment_devices')
    .set(patch)
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .execute();

export const deleteDevice = (db: Db, clientId: string, id: string) =>
  db
    .deleteFrom('equipment_devices')
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Every client's devices to watch or to resume, by router (the jobs' work list). */
export const devicesToWatch = (db: Db) =>
  db
    .selectFrom('equipment_devices')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'ACTIVE'), eb('monitored', '=', 1)]),
        eb.and([eb('status', '=', 'PENDING'), eb('pending_reason', '=', 'ROUTER_UNREACHABLE')]),
      ]),
    )
    .where('needs_revalidation', '=', 0)
    .orderBy('allocation_id')
    .execute();
