import type { CompiledQuery } from 'kysely';
import type { Db } from '../../db/database.js';
import { PreparedStatement, slot } from '../../db/prepared-statement.js';
import type { AccountsTable } from './tables.js';

export const findByEmail = (db: Db, email: string) =>
  db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();

/** An account by id, compiled once: read for every bearer an API call presents. */
export const findByIdStatement = (db: Db) =>
  new PreparedStatement(
    db.selectFrom('accounts').selectAll().where('id', '=', slot(0)).compile() as CompiledQuery<AccountsTable>,
  );

export const insertAccount = (db: Db, row: AccountsTable) => db.insertInto('accounts').values(row).execute();
