// Presence rows written in batches: the subscribes and closes of one turn of the event loop go
// to the database as one INSERT and one DELETE, in the order they happened, instead of a
// statement each (a reconnect storm of thousands of sockets otherwise queues thousands of writes).
import type { Db } from '../../db/database.js';
import * as q from './queries.js';
import type { PresenceRow } from './queries.js';

type Op = { add: PresenceRow } | { remove: { clientId: string; channel?: string } };

/** Rows per INSERT (5 parameters each, well under either database's limit). */
const BATCH = 500;

export class PresenceWriter {
  #queue: Op[] = [];
  #running: Promise<void> = Promise.resolve();
  #scheduled = false;
  #stopped = false;

  constructor(
    private readonly db: Db,
    private readonly onError: (err: unknown) => void,
  ) {}

  add(row: PresenceRow): void {
    this.#push({ add: row });
  }

  remove(clientId: string, channel?: string): void {
    this.#push({ remove: channel === undefined ? { clientId } : { clientId, channel } });
  }

  /** Resolves once everything queued before the call is written (a presence read waits for it). */
  flush(): Promise<void> {
    if (this.#queue.length > 0) this.#write();
    return this.#running;
  }

  /** Writes nothing more (the instance's rows are then dropped whole); waits for a write under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#queue = [];
    await this.#running;
  }

  #push(op: Op): void {
    if (this.#stopped) return;
    this.#queue.push(op);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#queue.length > 0) this.#write();
    });
  }

  #write(): void {
    const ops = this.#queue;
    this.#queue = [];
    this.#running = this.#running.then(() => this.#apply(ops)).catch(this.onError);
  }

  async #apply(ops: Op[]): Promise<void> {
    // Runs of adds and runs of removes, in order: a close after its subscribe deletes the row.
    for (let i = 0; i < ops.length;) {
      const first = ops[i]!;
      let j = i + 1;
      while (j < ops.length && 'add' in ops[j]! === 'add' in first) j++;
      const run = ops.slice(i, j);
      i = j;
      if ('add' in first) {
        // One row per key (a statement may not touch a row twice): the latest wins.
        const rows = new Map<string, PresenceRow>();
        for (const op of run) if ('add' in op) rows.set(`${op.add.channel}\n${op.add.client_id}`, op.add);
        const all = [...rows.values()];
        for (let k = 0; k < all.length; k += BATCH) await q.addPresenceRows(this.db, all.slice(k, k + BATCH));
      } else {
        const whole: string[] = [];
        for (const op of run) {
          if (!('remove' in op)) continue;
          if (op.remove.channel === undefined) whole.push(op.remove.clientId);
          else await q.removePresence(this.db, op.remove.clientId, op.remove.channel);
        }
        for (let k = 0; k < whole.length; k += BATCH)
          await q.removeClients(this.db, whole.slice(k, k + BATCH));
      }
    }
  }
}
