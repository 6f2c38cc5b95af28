// Which client an allocation belongs to, asked for every command queued. The questions asked in one
// turn of the event loop are answered by one statement (a burst of commands to a thousand routers
// costs one read, not a thousand), and positive answers are kept: an allocation never changes
// client and is never deleted. The cache is bounded so that scanning ids cannot grow it without limit.
// Owners read for another reason (an agent's handshake reads its allocation) are kept too, so the
// first command to a linked router needs no read.
import { chunks } from '../../core/chunks.js';
import type { Db } from '../../db/database.js';

const MAX_KNOWN_ALLOCATIONS = 100_000;
// Ids per statement: below both databases' bound-parameter limits.
const MAX_IDS_PER_STATEMENT = 500;

interface Waiter {
  resolve(owner: string | undefined): void;
  reject(reason: unknown): void;
}

export class AllocationOwners {
  /** allocation id → its client, for the allocations already found. */
  readonly #owners = new Map<string, string>();
  /** Allocation ids asked in this turn, with the callers waiting for them. */
  #pending = new Map<string, Waiter[]>();
  #scheduled = false;

  constructor(private readonly db: Db) {}

  async belongsTo(clientId: string, allocationId: string): Promise<boolean> {
    const known = this.#owners.get(allocationId);
    if (known !== undefined) return known === clientId;
    const owner = await new Promise<string | undefined>((resolve, reject) => {
      const waiting = this.#pending.get(allocationId);
      if (waiting) waiting.push({ resolve, reject });
      else this.#pending.set(allocationId, [{ resolve, reject }]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#lookUp());
      }
    });
    return owner === clientId;
  }

  /** Keeps an owner read elsewhere (an allocation's row). */
  remember(allocationId: string, clientId: string): void {
    if (this.#owners.get(allocationId) === clientId) return;
    if (this.#owners.size >= MAX_KNOWN_ALLOCATIONS) this.#owners.clear();
    this.#owners.set(allocationId, clientId);
  }

  async #lookUp(): Promise<void> {
    const pending = this.#pending;
    this.#pending = new Map();
    this.#scheduled = false;
    const found = new Map<string, string>();
    let failure: unknown = null;
    try {
      for (const ids of chunks([...pending.keys()], MAX_IDS_PER_STATEMENT)) {
        const rows = await this.db
          .selectFrom('allocations')
          .select(['id', 'client_id'])
          .where('id', 'in', ids)
          .execute();
        for (const row of rows) found.set(row.id, row.client_id);
      }
    } catch (err) {
      failure = err;
    }
    for (const [id, owner] of found) this.remember(id, owner);
    // Every caller is answered: its owner (undefined when there is none), or the read's failure.
    for (const [id, waiters] of pending) {
      for (const w of waiters) {
        if (failure === null) w.resolve(found.get(id));
        else w.reject(failure);
      }
    }
  }
}
