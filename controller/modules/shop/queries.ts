// Statements on the shop's store, catalogue, stock and router-read tables (the wallet's are in
// wallet-queries.ts). Every one is scoped by the tenant.
import type { Db } from '../../db/database.js';
import type { ShopProfilesTable, ShopRouterReadsTable, ShopStockTable, ShopStoresTable } from './tables.js';

// --- store ---

export const findStore = (db: Db, clientId: string) =>
  db.selectFrom('shop_stores').selectAll().where('client_id', '=', clientId).executeTakeFirst();

/** The tenant whose store holds this slug, if any. */
export const slugOwner = async (db: Db, slug: string): Promise<string | undefined> =>
  (await db.selectFrom('shop_stores').select('client_id').where('store_slug', '=', slug).executeTakeFirst())
    ?.client_id;

export const saveStore = (db: Db, row: ShopStoresTable) =>
  db
    .insertInto('shop_stores')
    .values(row)
    .onConflict((oc) =>
      oc.column('client_id').doUpdateSet({
        display_name: row.display_name,
        logo_url: row.logo_url,
        store_slug: row.store_slug,
        config_json: row.config_json,
        merchant_key_sealed: row.merchant_key_sealed,
        updated_at: row.updated_at,
      }),
    )
    .execute();

// --- catalogue ---

export const listCatalogue = (db: Db, clientId: string) =>
  db.selectFrom('shop_profiles').selectAll().where('client_id', '=', clientId).orderBy('name').execute();

export const listPushed = (db: Db, clientId: string) =>
  db
    .selectFrom('shop_profiles')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('origin', '=', 'APP')
    .orderBy('name')
    .execute();

/** A pushed entry replaces what the tenant held under its name, whatever its origin. */
export const upsertPushed = (db: Db, rows: ShopProfilesTable[]) =>
  db
    .insertInto('shop_profiles')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['client_id', 'name']).doUpdateSet((eb) => ({
        origin: eb.ref('excluded.origin'),
        price_xof: eb.ref('excluded.price_xof'),
        data_limit: eb.ref('excluded.data_limit'),
        time_limit: eb.ref('excluded.time_limit'),
        validity: eb.ref('excluded.validity'),
        display_name: eb.ref('excluded.display_name'),
        is_active: eb.ref('excluded.is_active'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();

export const deleteProfiles = async (db: Db, clientId: string, names: string[]): Promise<number> => {
  if (names.length === 0) return 0;
  const res = await db
    .deleteFrom('shop_profiles')
    .where('client_id', '=', clientId)
    .where('name', 'in', names)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
};

/** Router-found entries: new names inserted, router entries refreshed, pushed entries left alone. */
export const upsertFound = (db: Db, rows: ShopProfilesTable[]) =>
  db
    .insertInto('shop_profiles')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['client_id', 'name'])
        .doUpdateSet((eb) => ({
          price_xof: eb.ref('excluded.price_xof'),
          data_limit: eb.ref('excluded.data_limit'),
          time_limit: eb.ref('excluded.time_limit'),
          validity: eb.ref('excluded.validity'),
          updated_at: eb.ref('excluded.updated_at'),
        }))
        .where('shop_profiles.origin', '=', 'ROUTER'),
    )
    .execute();

/** Router-found entries whose profile the router no longer has. */
export const deleteVanished = async (db: Db, clientId: string, present: string[]): Promise<number> => {
  let q = db.deleteFrom('shop_profiles').where('client_id', '=', clientId).where('origin', '=', 'ROUTER');
  if (present.length > 0) q = q.where('name', 'not in', present);
  return Number((await q.executeTakeFirst()).numDeletedRows);
};

/** Tenants with a shop: a store configuration or a catalogue. */
export const shopTenants = async (db: Db): Promise<string[]> => {
  const rows = await db
    .selectFrom('shop_stores')
    .select('client_id')
    .union(db.selectFrom('shop_profiles').select('client_id').distinct())
    .execute();
  return rows.map((r) => r.client_id);
};

// --- stock ---

/** Unsold stock rows (profile, ticket code), oldest first; optionally of one profile. */
export const unsoldRows = (db: Db, clientId: string, profileName?: string) => {
  let query = db
    .selectFrom('shop_stock')
    .select(['id', 'profile_name', 'ticket_code'])
    .where('client_id', '=', clientId)
    .where('sold_at', 'is', null);
  if (profileName !== undefined) query = query.where('profile_name', '=', profileName);
  return query.orderBy('id').execute();
};

/** Reads (and, with row locks, locks) a catalogue entry; false when it is gone. */
export const lockEntry = async (
  db: Db,
  clientId: string,
  name: string,
  rowLocks: boolean,
): Promise<boolean> => {
  const q = db
    .selectFrom('shop_profiles')
    .select('name')
    .where('client_id', '=', clientId)
    .where('name', '=', name);
  return (await (rowLocks ? q.forUpdate() : q).executeTakeFirst()) !== undefined;
};

export const insertStock = (db: Db, rows: ShopStockTable[]) =>
  db.insertInto('shop_stock').values(rows).execute();

/** Marks one stock ticket sold; 0 when another sale took it first. */
export const markSold = async (db: Db, clientId: string, id: string, reference: string, at: string) =>
  Number(
    (
      await db
        .updateTable('shop_stock')
        .set({ sale_reference: reference, sold_at: at })
        .where('client_id', '=', clientId)
        .where('id', '=', id)
        .where('sold_at', 'is', null)
        .executeTakeFirst()
    ).numUpdatedRows,
  );

// --- router reads ---

export const saveRouterRead = (db: Db, row: ShopRouterReadsTable) =>
  db
    .insertInto('shop_router_reads')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['client_id', 'allocation_id']).doUpdateSet({
        profiles_json: row.profiles_json,
        read_at: row.read_at,
      }),
    )
    .execute();

export const findRouterRead = (db: Db, clientId: string, allocationId: string) =>
  db
    .selectFrom('shop_router_reads')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('allocation_id', '=', allocationId)
    .executeTakeFirst();
