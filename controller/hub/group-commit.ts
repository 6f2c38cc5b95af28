// Group commit for the command queue's statements (insert, send, ack, result, reads). Each write
// waits for its own commit, as before, but writes waiting together share one transaction. A commit
// is most of a small write's cost (about 80 µs of a 100-250 µs SQLite write here; a WAL fsync on
// PostgreSQL), so when a thousand agents answer at once this turns a thousand commits into a few
// dozen. A lone write costs one setImmediate more and runs without a transaction, unless it is
// `atomic` (several statements that must commit together, and then commit once).
//
// A group is bounded, in writes and in time: a burst of a thousand commands is stored and sent in
// groups of a few dozen, so the first commands leave (and their results come back) while later
// ones are still being stored, instead of every command waiting for one giant transaction. Between
// two groups the event loop turns: the commands just committed are signed and sent, and the
// frames that arrived meanwhile (results) are read and join the next group.
// Two lanes: writes about commands already out (ack, result, send, reads for waiting callers) go
// before new commands (`fresh`), which keep a share of every group, so a burst being stored never
// holds back the results of the commands it has already sent, and results never stop new commands.
// On SQLite the writes of a group run synchronously, one after the other in one turn
// (statement-sessions.ts); on PostgreSQL a write asked for while the group waits for the server joins it.
import type { Eventually, StatementRunner, StatementSessions } from '../db/statement-sessions.js';
import { errorFields, type Logger } from '../logger.js';

/** A write of the queue: its statements, run on the group's transaction (or alone). */
export type Write<T> = (run: StatementRunner) => Eventually<T>;

interface Pending {
  write: Write<unknown>;
  atomic: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most writes in one transaction (default 64). */
  maxWrites?: number;
  /**
   * A group takes no more writes once it has run this long (default 10 ms): the writes left wait
   * for the next group, after the event loop has turned.
   */
  maxMs?: number;
}

export interface WriteOptions {
  /** Its statements commit together even when it is alone in its group. */
  atomic?: boolean;
  /** A new command: it waits behind the writes of commands already out, but keeps a share of each group. */
  fresh?: boolean;
}

// Every FRESH_SHARE-th slot of a group goes to a new command when both lanes are waiting.
const FRESH_SHARE = 4;

/** A FIFO queue whose `shift` is O(1) (an array's shift is O(n), and a burst queues thousands). */
class Lane {
  #items: Pending[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(p: Pending): void {
    this.#items.push(p);
  }

  shift(): Pending | undefined {
    const p = this.#items[this.#head];
    if (p === undefined) return undefined;
    this.#items[this.#head] = undefined as never;
    this.#head += 1;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    }
    return p;
  }
}

export class GroupCommit {
  readonly #maxWrites: number;
  readonly #maxMs: number;
  readonly #progress = new Lane();
  readonly #fresh = new Lane();
  #scheduled = false;
  #flushing = false;

  constructor(
    private readonly sessions: StatementSessions,
    private readonly logger: Logger,
    options: GroupCommitOptions = {},
  ) {
    this.#maxWrites = Math.max(1, options.maxWrites ?? 64);
    this.#maxMs = options.maxMs ?? 10;
  }

  /** Writes waiting for a group (for tests and status). */
  get waiting(): number {
    return this.#progress.length + this.#fresh.length;
  }

  /** Runs `write` (on the transaction it is given) in a coming group; resolves once committed. */
  run<T>(write: Write<T>, options: WriteOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const pending = {
        write,
        atomic: options.atomic ?? false,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      (options.fresh ? this.#fresh : this.#progress).push(pending);
      this.#schedule();
    });
  }

  // The next group runs after the I/O callbacks of this turn (every frame read with this one joins
  // it), and never while another group is running.
  #schedule(): void {
    if (this.#scheduled || this.#flushing || this.waiting === 0) return;
    this.#scheduled = true;
    setImmediate(() => void this.#flush());
  }

  /**
   * The lane of the next write for a group that has taken `taken` writes, `fresh` of them new
   * commands: commands already out first, but every FRESH_SHARE-th slot to a new one.
   */
  #laneOfNext(taken: number, fresh: number): Lane | undefined {
    if (this.#fresh.length === 0) return this.#progress.length === 0 ? undefined : this.#progress;
    if (this.#progress.length === 0) return this.#fresh;
    return fresh * FRESH_SHARE < taken + 1 ? this.#fresh : this.#progress;
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    this.#flushing = true;
    try {
      await this.#flushOne();
    } finally {
      this.#flushing = false;
      // Writes left over or asked for meanwhile: the next group, once the loop has turned.
      this.#schedule();
    }
  }

  async #flushOne(): Promise<void> {
    if (this.waiting === 1) {
      return this.#alone((this.#fresh.shift() ?? this.#progress.shift())!);
    }
    // The group's writes are taken one at a time as it runs, so that writes asked for meanwhile
    // (PostgreSQL answers over the network) may join it; the first is taken now, so a transaction
    // that cannot even begin fails a caller instead of retrying for ever.
    const group: Pending[] = [];
    let fresh = 0;
    const take = (): Pending | undefined => {
      const lane = this.#laneOfNext(group.length, fresh);
      if (lane === undefined) return undefined;
      if (lane === this.#fresh) fresh += 1;
      const p = lane.shift()!;
      group.push(p);
      return p;
    };
    take();
    let results: unknown[];
    try {
      const startedAt = performance.now();
      const next = (): Pending | undefined => {
        const full = group.length >= this.#maxWrites || performance.now() - startedAt >= this.#maxMs;
        return full ? undefined : take();
      };
      results = await this.sessions.transaction((run) => {
        const out: unknown[] = [];
        // Synchronous writes follow one another in this loop; a write that answers a promise
        // (PostgreSQL) continues it once answered.
        const from = (first: Pending | undefined): Eventually<unknown[]> => {
          for (let p = first; p !== undefined; p = next()) {
            const value = p.write(run);
            if (value instanceof Promise) {
              return value.then((v) => {
                out.push(v);
                return from(next());
              });
            }
            out.push(value);
          }
          return out;
        };
        return from(group[0]);
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
      for (const p of group) await this.#alone(p);
      return;
    }
    group.forEach((p, i) => p.resolve(results[i]));
  }

  /** One write on its own: in a transaction of its own only when it is atomic. */
  #alone(p: Pending): Promise<void> {
    const done = p.atomic ? this.sessions.transaction(p.write) : this.sessions.alone(p.write);
    return done.then(p.resolve, p.reject);
  }
}
