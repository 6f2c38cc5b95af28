// Serialises transactions over something no single row stands for (a client's whole device count,
// which has no row while the client has no device). Two writers that lock the same name run one
// after the other; the lock is released when the transaction ends.
import { sql } from 'kysely';
import type { DialectCapabilities } from './capabilities.js';
import type { Db } from './database.js';

/** Locks `name` for the rest of transaction `trx` (nothing to do where writers are serialised). */
export async function lockName(trx: Db, caps: DialectCapabilities, name: string): Promise<void> {
  if (!caps.namedLocks) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(trx);
}
