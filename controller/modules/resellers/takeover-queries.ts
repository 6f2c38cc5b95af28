import type { Db } from '../../db/database.js';
import type { ResellerRouterLinksTable } from './takeover-tables.js';

export const findLink = (db: Db, resellerId: string, serial: string) =>
  db
    .selectFrom('reseller_router_links')
    .selectAll()
    .where('reseller_id', '=', resellerId)
    .where('router_serial', '=', serial)
    .executeTakeFirst();

export const insertLink = (db: Db, row: ResellerRouterLinksTable) =>
  db.insertInto('reseller_router_links').values(row).execute();

/** Which of `keys` this reseller's ledger already holds. */
export async function existingKeys(
  db: Db,
  resellerId: string,
  keys: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await db
      .selectFrom('reseller_ledger')
      .select('idempotency_key')
      .where('reseller_id', '=', resellerId)
      .where('idempotency_key', 'in', keys.slice(i, i + 500))
      .execute();
    for (const r of rows) found.add(r.idempotency_key);
  }
  return found;
}

/** Which of `usernames` name a reseller of the tenant (deleted ones included: the name is taken). */
export async function knownUsernames(
  db: Db,
  clientId: string,
  usernames: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < usernames.length; i += 500) {
    const rows = await db
      .selectFrom('resellers')
      .select('username')
      .where('client_id', '=', clientId)
      .where('username', 'in', usernames.slice(i, i + 500))
      .execute();
    for (const r of rows) found.add(r.username);
  }
  return found;
}
