// Which client an allocation belongs to, asked for every command queued: a statement compiled once,
// and a cache of the answers found. An allocation never changes client and is never deleted, so a
// positive answer stays true; the cache is bounded so that scanning ids cannot grow it without limit.
import type { Db } from '../../db/database.js';
import { PreparedStatement, slot } from '../../db/prepared-statement.js';

const MAX_KNOWN_ALLOCATIONS = 100_000;

export class AllocationOwners {
  readonly #ofClient: PreparedStatement<{ id: string }>;
  /** allocation id → its client, for the allocations already found. */
  readonly #owners = new Map<string, string>();

  constructor(private readonly db: Db) {
    this.#ofClient = new PreparedStatement(
      db
        .selectFrom('allocations')
        .select('id')
        .where('client_id', '=', slot(0))
        .where('id', '=', slot(1))
        .compile(),
    );
  }

  async belongsTo(clientId: string, allocationId: string): Promise<boolean> {
    if (this.#owners.get(allocationId) === clientId) return true;
    const found = (await this.#ofClient.run(this.db, [clientId, allocationId])).rows.length > 0;
    if (found) {
      if (this.#owners.size >= MAX_KNOWN_ALLOCATIONS) this.#owners.clear();
      this.#owners.set(allocationId, clientId);
    }
    return found;
  }
}
