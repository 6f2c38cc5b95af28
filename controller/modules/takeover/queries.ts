import type { Db } from '../../db/database.js';
import type { ResellerRouterLinksTable } from './tables.js';

export const findLink = (db: Db, resellerId: string, serial: string) =>
  db
    .selectFrom('reseller_router_links')
    .selectAll()
    .where('reseller_id', '=', resellerId)
    .where('router_serial', '=', serial)
    .executeTakeFirst();

export const insertLink = (db: Db, row: ResellerRouterLinksTable) =>
  db.insertInto('reseller_router_links').values(row).execute();
