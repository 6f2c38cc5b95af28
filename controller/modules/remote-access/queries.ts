// Every statement on the remote-access tables; each is scoped by the tenant it is given.
import type { Db } from '../../db/database.js';
import type {
  ChannelState,
  RemoteAccessAttemptsTable,
  RemoteAccessChannelsTable,
  RemoteAccessProfilesTable,
  RemoteAccessSlotsTable,
  TransportProtocol,
} from './tables.js';

export const findSlot = (db: Db, clientId: string, allocationId: string) =>
  db
    .selectFrom('remote_access_slots')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .executeTakeFirst();

export async function upsertSlot(db: Db, row: RemoteAccessSlotsTable): Promise<void> {
  await db
    .insertInto('remote_access_slots')
    .values(row)
    .onConflict((oc) => oc.column('allocation_id').doNothing())
    .execute();
}

export const updateSlot = (
  db: Db,
  clientId: string,
  allocationId: string,
  set: Partial<Omit<RemoteAccessSlotsTable, 'allocation_id' | 'client_id'>>,
) =>
  db
    .updateTable('remote_access_slots')
    .set(set)
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .execute();

/** The slot's channels, oldest first (revoked ones included: callers filter). */
export const listChannels = (db: Db, clientId: string, allocationId: string) =>
  db
    .selectFrom('remote_access_channels')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findChannel = (db: Db, clientId: string, allocationId: string, id: string) =>
  db
    .selectFrom('remote_access_channels')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .where('id', '=', id)
    .executeTakeFirst();

export const insertChannel = (db: Db, row: RemoteAccessChannelsTable) =>
  db.insertInto('remote_access_channels').values(row).execute();

/** Moves a channel from `from` to `to` only if it is still in `from`; answers whether it moved. */
export async function moveChannel(
  db: Db,
  id: string,
  from: ChannelState,
  to: ChannelState,
  now: string,
  extra: Partial<
    Pick<RemoteAccessChannelsTable, 'last_data_plane_confirmed_at' | 'last_management_probe_at'>
  > = {},
): Promise<boolean> {
  const result = await db
    .updateTable('remote_access_channels')
    .set({ state: to, updated_at: now, ...extra })
    .where('id', '=', id)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const touchChannel = (
  db: Db,
  id: string,
  set: Partial<
    Pick<
      RemoteAccessChannelsTable,
      'last_data_plane_confirmed_at' | 'last_management_probe_at' | 'updated_at'
    >
  >,
) => db.updateTable('remote_access_channels').set(set).where('id', '=', id).execute();

/** The highest address index in use (all tenants: addresses are one pool). */
export async function maxAddressIndex(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('remote_access_channels')
    .select((eb) => eb.fn.max('address_index').as('max'))
    .executeTakeFirst();
  return row?.max === null || row?.max === undefined ? null : Number(row.max);
}

export const findProfileFor = (db: Db, clientId: string, allocationId: string, protocol: TransportProtocol) =>
  db
    .selectFrom('remote_access_profiles')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .where('protocol', '=', protocol)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();

export const listProfiles = (db: Db, clientId: string, allocationId: string) =>
  db
    .selectFrom('remote_access_profiles')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findProfile = (db: Db, clientId: string, id: string) =>
  db
    .selectFrom('remote_access_profiles')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .executeTakeFirst();

export const insertProfile = (db: Db, row: RemoteAccessProfilesTable) =>
  db.insertInto('remote_access_profiles').values(row).execute();

export const findAttempt = (db: Db, clientId: string, operationId: string) =>
  db
    .selectFrom('remote_access_attempts')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('operation_id', '=', operationId)
    .executeTakeFirst();

/** Stores a new attempt unless the id is taken; true when this call stored it. */
export async function insertAttempt(db: Db, row: RemoteAccessAttemptsTable): Promise<boolean> {
  const result = await db
    .insertInto('remote_access_attempts')
    .values(row)
    .onConflict((oc) => oc.columns(['client_id', 'operation_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export const updateAttempt = (
  db: Db,
  clientId: string,
  operationId: string,
  set: Partial<Omit<RemoteAccessAttemptsTable, 'client_id' | 'operation_id'>>,
) =>
  db
    .updateTable('remote_access_attempts')
    .set(set)
    .where('client_id', '=', clientId)
    .where('operation_id', '=', operationId)
    .execute();

/** Slots (all tenants) whose rescue relay was enabled at or before `before` and is not read yet. */
export const listRescuesDue = (db: Db, before: string) =>
  db
    .selectFrom('remote_access_slots')
    .select(['client_id', 'allocation_id'])
    .where('rescue_state', '=', 'ENABLING')
    .where('rescue_updated_at', '<=', before)
    .orderBy('rescue_updated_at')
    .limit(500)
    .execute();

/** Slots (all tenants) whose deposited router credentials the agent has not taken yet. */
export const listCredentialsPending = (db: Db) =>
  db
    .selectFrom('remote_access_slots')
    .select(['client_id', 'allocation_id'])
    .where('credentials_state', '=', 'PENDING')
    .orderBy('credentials_updated_at')
    .limit(500)
    .execute();

/** Records the agent's answer for the credentials deposited at `version` only (a newer deposit wins). */
export const settleCredentials = (
  db: Db,
  clientId: string,
  allocationId: string,
  version: string,
  set: Pick<RemoteAccessSlotsTable, 'credentials_state' | 'credentials_fault' | 'credentials_applied_at'>,
) =>
  db
    .updateTable('remote_access_slots')
    .set(set)
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .where('credentials_updated_at', '=', version)
    .where('credentials_state', '=', 'PENDING')
    .execute();
