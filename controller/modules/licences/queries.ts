import type { Db } from '../../db/database.js';
import type { LicencesTable } from './tables.js';

export const findPlan = (db: Db, code: string) =>
  db.selectFrom('plans').selectAll().where('code', '=', code).where('active', '=', 1).executeTakeFirst();

export const listPlans = (db: Db) =>
  db.selectFrom('plans').selectAll().where('active', '=', 1).orderBy('code').execute();

export const insertLicence = (db: Db, row: LicencesTable) => db.insertInto('licences').values(row).execute();

export const listForClient = (db: Db, clientId: string) =>
  db
    .selectFrom('licences')
    .selectAll()
    .where('client_id', '=', clientId)
    .orderBy('expires_at', 'desc')
    .execute();

/** Latest expiry among the client's non-revoked licences of a product, or undefined. */
export const latestExpiry = async (db: Db, clientId: string, productCode: string) =>
  (
    await db
      .selectFrom('licences')
      .select((eb) => eb.fn.max('expires_at').as('latest'))
      .where('client_id', '=', clientId)
      .where('product_code', '=', productCode)
      .where('status', '=', 'ACTIVE')
      .executeTakeFirst()
  )?.latest ?? undefined;

export const countCurrent = async (db: Db, clientId: string, productCode: string, now: string) =>
  Number(
    (
      await db
        .selectFrom('licences')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('client_id', '=', clientId)
        .where('product_code', '=', productCode)
        .where('status', '=', 'ACTIVE')
        .where('starts_at', '<=', now)
        .where('expires_at', '>', now)
        .executeTakeFirst()
    )?.n ?? 0,
  );
