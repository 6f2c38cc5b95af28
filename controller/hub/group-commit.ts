// Group commit for the command queue's writes (insert, send, ack, result). Each write waits for its
// own commit, as before, but the writes asked for during one turn of the event loop share a single
// transaction. A commit is most of a small write's cost (about 80 µs of a 100-250 µs SQLite write
// here; a WAL fsync on PostgreSQL), so when a thousand agents answer at once this turns a thousand
// commits into a few. A lone write costs one setImmediate more and runs without a transaction,
// unless it is `atomic` (several statements that must commit together, and then commit once).
import type { Db } from '../db/database.js';
import { errorFields, type Logger } from '../logger.js';

interface Pending {
  write: (db: Db) => Promise<unknown>;
  atomic: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  /**
   * Runs `write` (on the transaction it is given) in the next group; resolves once committed.
   * `atomic`: its statements commit together even when it is alone in its group.
   */
  run<T>(write: (db: Db) => Promise<T>, atomic = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, atomic, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // After the I/O callbacks of this turn: every frame read with this one joins the group.
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const group = this.#queue;
    this.#queue = [];
    if (group.length === 1 && !group[0]!.atomic) {
      const [one] = group as [Pending];
      return one.write(this.db).then(one.resolve, one.reject);
    }
    let results: unknown[];
    try {
      results = await this.db.transaction().execute(async (trx) => {
        const out: unknown[] = [];
        for (const p of group) out.push(await p.write(trx));
        return out;
      });
    } catch (err) {
      if (group.length === 1) {
        group[0]!.reject(err);
        return;
      }
      // Rolled back as a whole: each write again on its own, so one failure fails only its caller
      // (an atomic one in a transaction of its own).
      this.logger.warn(
        { ...errorFields(err, this.logger), writes: group.length },
        'command queue group commit failed; writing one by one',
      );
      for (const p of group) {
        const alone = p.atomic ? this.db.transaction().execute((trx) => p.write(trx)) : p.write(this.db);
        await alone.then(p.resolve, p.reject);
      }
      return;
    }
    group.forEach((p, i) => p.resolve(results[i]));
  }
}
