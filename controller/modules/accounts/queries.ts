import type { Db } from '../../db/database.js';
import type { AccountsTable } from './tables.js';

export const findByEmail = (db: Db, email: string) =>
  db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();

export const findById = (db: Db, id: string) =>
  db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();

export const insertAccount = (db: Db, row: AccountsTable) => db.insertInto('accounts').values(row).execute();
