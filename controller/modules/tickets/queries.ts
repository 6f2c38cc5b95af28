import type { Db } from '../../db/database.js';
import { ShapedStatement } from '../../db/prepared-statement.js';
import type { RadiusProfilesTable, RadiusTicketsTable, TicketStatus } from './tables.js';

// ---- profiles ---------------------------------------------------------------------------------

export const listProfiles = (db: Db, clientId: string) =>
  db.selectFrom('radius_profiles').selectAll().where('client_id', '=', clientId).orderBy('name').execute();

export const findProfileById = (db: Db, clientId: string, id: string) =>
  db
    .selectFrom('radius_profiles')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .executeTakeFirst();

export const findProfileByName = (db: Db, clientId: string, name: string) =>
  db
    .selectFrom('radius_profiles')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('name', '=', name)
    .executeTakeFirst();

export const profileNames = async (db: Db, clientId: string, names: string[]): Promise<Set<string>> =>
  new Set(
    (
      await db
        .selectFrom('radius_profiles')
        .select('name')
        .where('client_id', '=', clientId)
        .where('name', 'in', names)
        .execute()
    ).map((r) => r.name),
  );

export type ProfilePatch = Partial<
  Pick<
    RadiusProfilesTable,
    'rate_limit' | 'data_limit_bytes' | 'time_limit_seconds' | 'validity_seconds' | 'price_xof'
  >
>;

/** Creates the profile or changes only the fields in the patch; one statement, so two PUTs cannot race. */
export const upsertProfile = (db: Db, row: RadiusProfilesTable, patch: ProfilePatch) =>
  db
    .insertInto('radius_profiles')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['client_id', 'name']).doUpdateSet({ ...patch, updated_at: row.updated_at }),
    )
    .execute();

/** Profiles created where absent; existing ones are left exactly as they are. */
export const insertProfilesIfAbsent = (db: Db, rows: RadiusProfilesTable[]) =>
  db
    .insertInto('radius_profiles')
    .values(rows)
    .onConflict((oc) => oc.columns(['client_id', 'name']).doNothing())
    .execute();

export const profilesByNames = (db: Db, clientId: string, names: readonly string[]) =>
  db
    .selectFrom('radius_profiles')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('name', 'in', names)
    .execute();

/** A router's profiles: new ones are created, known ones only get the router's rate limit. */
export const upsertRouterProfiles = (db: Db, rows: RadiusProfilesTable[]) =>
  db
    .insertInto('radius_profiles')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['client_id', 'name']).doUpdateSet((eb) => ({
        rate_limit: eb.ref('excluded.rate_limit'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();

// ---- tickets ----------------------------------------------------------------------------------

const TICKET_FIELDS = [
  'id',
  'client_id',
  'code',
  'password',
  'profile_id',
  'profile_ref',
  'status',
  'comment',
  'reseller_name',
  'created_at',
  'used_at',
  'first_nas_id',
  'bytes_used',
  'seconds_used',
  'expires_at',
  'data_limit_bytes',
  'time_limit_seconds',
  'bytes_base',
  'seconds_base',
] as const satisfies readonly (keyof RadiusTicketsTable)[];

/** Bound parameters one ticket row takes in an insert. */
export const TICKET_INSERT_COLUMNS = TICKET_FIELDS.length;

/**
 * Inserts tickets, skipping codes already taken in the tenant; the run returns the codes written.
 * Compiled once in a few sizes (1,000 rows is 16,000 parameters, under both dialects' limits) so a
 * 1,000-ticket batch neither builds nor prepares a statement of its own.
 */
export const ticketInsertStatement = (db: Db) =>
  new ShapedStatement<RadiusTicketsTable, { code: string }>(
    [1000, 100, 10, 1],
    0,
    TICKET_FIELDS.length,
    (t) => TICKET_FIELDS.map((f) => t[f]),
    (n, slots) =>
      db
        .insertInto('radius_tickets')
        .values(
          Array.from(
            { length: n },
            (_, i) =>
              Object.fromEntries(
                TICKET_FIELDS.map((f, j) => [f, slots.item(i, j)]),
              ) as unknown as RadiusTicketsTable,
          ),
        )
        .onConflict((oc) => oc.columns(['client_id', 'code']).doNothing())
        .returning('code')
        .compile(),
  );

export interface TicketFilter {
  status?: TicketStatus | undefined;
  reseller?: string | undefined;
  limit: number;
  offset: number;
}

const ticketWithProfile = (db: Db, clientId: string) =>
  db
    .selectFrom('radius_tickets as t')
    .innerJoin('radius_profiles as p', (j) =>
      j.onRef('p.id', '=', 't.profile_id').onRef('p.client_id', '=', 't.client_id'),
    )
    .selectAll('t')
    .select('p.name as profile_name')
    .where('t.client_id', '=', clientId);

export type TicketRow = RadiusTicketsTable & { profile_name: string };

export const listTickets = (db: Db, clientId: string, f: TicketFilter): Promise<TicketRow[]> => {
  // The page's codes first, from the list index alone (it ends with status), then their rows: a
  // deep offset skips index entries, not table rows.
  let page = db.selectFrom('radius_tickets as k').select('k.code').where('k.client_id', '=', clientId);
  // DELETED tickets left the catalogue: listed only when asked for by status.
  page = f.status ? page.where('k.status', '=', f.status) : page.where('k.status', '!=', 'DELETED');
  if (f.reseller !== undefined) page = page.where('k.reseller_name', '=', f.reseller);
  page = page.orderBy('k.created_at', 'desc').orderBy('k.code', 'desc').limit(f.limit).offset(f.offset);
  return ticketWithProfile(db, clientId)
    .where('t.code', 'in', page)
    .orderBy('t.created_at', 'desc')
    .orderBy('t.code', 'desc')
    .execute();
};

export const findTicket = (db: Db, clientId: string, code: string): Promise<TicketRow | undefined> =>
  ticketWithProfile(db, clientId).where('t.code', '=', code).executeTakeFirst();

/** Moves a ticket from the status it was read in; 0 rows when it changed meanwhile. */
export const setTicketStatus = async (
  db: Db,
  clientId: string,
  code: string,
  from: TicketStatus,
  to: TicketStatus,
) =>
  Number(
    (
      await db
        .updateTable('radius_tickets')
        .set({ status: to })
        .where('client_id', '=', clientId)
        .where('code', '=', code)
        .where('status', '=', from)
        .executeTakeFirst()
    ).numUpdatedRows,
  );

export const countByStatus = (db: Db, clientId: string, resellerName?: string) => {
  let q = db
    .selectFrom('radius_tickets')
    .select((eb) => ['status', eb.fn.countAll().as('n')])
    .where('client_id', '=', clientId);
  if (resellerName !== undefined) q = q.where('reseller_name', '=', resellerName);
  return q.groupBy('status').execute();
};

export type StoredTicket = Pick<RadiusTicketsTable, 'code' | 'password' | 'profile_id' | 'status'>;

/** What an import compares a router user with: the stored tickets of some codes. */
export const ticketsByCodes = (db: Db, clientId: string, codes: readonly string[]): Promise<StoredTicket[]> =>
  db
    .selectFrom('radius_tickets')
    .select(['code', 'password', 'profile_id', 'status'])
    .where('client_id', '=', clientId)
    .where('code', 'in', codes)
    .execute();

/** Of some codes, those still ACTIVE and never used: a ticket that can still be handed to a buyer. */
export const sellableCodes = async (
  db: Db,
  clientId: string,
  codes: readonly string[],
): Promise<Set<string>> =>
  codes.length === 0
    ? new Set()
    : new Set(
        (
          await db
            .selectFrom('radius_tickets')
            .select('code')
            .where('client_id', '=', clientId)
            .where('code', 'in', codes)
            .where('status', '=', 'ACTIVE')
            .where('used_at', 'is', null)
            .execute()
        ).map((r) => r.code),
      );

/** Code, status and profile name of the tickets of some codes (any status, DELETED included). */
export const inventoryRows = (db: Db, clientId: string, codes: readonly string[]) =>
  db
    .selectFrom('radius_tickets as t')
    .innerJoin('radius_profiles as p', (j) =>
      j.onRef('p.id', '=', 't.profile_id').onRef('p.client_id', '=', 't.client_id'),
    )
    .select(['t.code', 't.status', 'p.name as profile'])
    .where('t.client_id', '=', clientId)
    .where('t.code', 'in', codes)
    .execute();

/** Tickets not DELETED created at or after `since`, optionally only those of some codes. */
export const countCreatedSince = async (
  db: Db,
  clientId: string,
  since: string,
  codes?: readonly string[],
): Promise<number> => {
  let q = db
    .selectFrom('radius_tickets')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('client_id', '=', clientId)
    .where('created_at', '>=', since)
    .where('status', '!=', 'DELETED');
  if (codes !== undefined) q = q.where('code', 'in', codes);
  return Number((await q.executeTakeFirstOrThrow()).n);
};
