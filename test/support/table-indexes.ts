import { CompiledQuery } from 'kysely';
import type { DatabaseHandle } from '../../controller/db/database.js';

/** The indexes `table`'s schema declares, by name, sorted (the engine's own for keys left out). */
export async function indexNames(handle: DatabaseHandle, table: string): Promise<string[]> {
  const { rows } = await handle.db.executeQuery<{ name: string }>(
    CompiledQuery.raw(handle.caps.listIndexesSql, [table]),
  );
  return rows.map((r) => r.name).sort();
}
