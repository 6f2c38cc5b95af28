// Group commit for the RADIUS hot path. Requests queue their writes here; one short transaction
// writes everything queued so far. A write a reply depends on (a ticket's status change, an
// accounting report) is "durable": its request waits for the commit before answering, and the
// commit starts as soon as the current I/O turn ends, so it gathers every request that arrived
// with it. The authentication log is not waited for: it is written within `maxDelayMs` or once
// `maxRows` are queued. Only one transaction runs at a time; what arrives meanwhile goes in the next.
import type { Db } from '../db/database.js';
import { errorFields, type Logger } from '../logger.js';
import type { RadiusAuthLogTable } from './tables.js';
import { mergeUpdates, sessionKey, type NasReset, type SessionUpdate } from './session-update.js';

export interface FirstUse {
  clientId: string;
  code: string;
  nasId: string;
  at: string;
  expiresAt: string | null;
}

export interface Exhaust {
  clientId: string;
  code: string;
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/** Everything one transaction writes. */
export class Batch {
  readonly authLog: RadiusAuthLogTable[] = [];
  readonly firstUse: FirstUse[] = [];
  readonly exhaust: Exhaust[] = [];
  /** One entry per session, several reports of it merged. */
  readonly sessions = new Map<string, SessionUpdate>();
  readonly resets: NasReset[] = [];
  readonly waiters: Waiter[] = [];

  get size(): number {
    return (
      this.authLog.length +
      this.firstUse.length +
      this.exhaust.length +
      this.sessions.size +
      this.resets.length
    );
  }
}

const RETRY_DELAY_MS = 1_000;

export type PersistBatch = (trx: Db, batch: Batch) => Promise<void>;

export interface WriteBehindOptions {
  maxDelayMs: number;
  maxRows: number;
  /** Authentication log rows kept for a retry after a failed commit, at most. */
  maxRetainedRows?: number;
}

export class WriteBehind {
  #batch = new Batch();
  #running: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #immediate: NodeJS.Immediate | null = null;
  /** Set after a failed commit: retained log rows are retried after a pause, not in a tight loop. */
  #failing = false;

  constructor(
    private readonly db: Db,
    private readonly persist: PersistBatch,
    private readonly options: WriteBehindOptions,
    private readonly logger: Logger,
  ) {}

  /** Queues an authentication log row; not waited for. */
  log(row: RadiusAuthLogTable): void {
    this.#batch.authLog.push(row);
    this.#schedule(this.#batch.authLog.length >= this.options.maxRows);
  }

  firstUse(op: FirstUse): Promise<void> {
    this.#batch.firstUse.push(op);
    return this.#durable();
  }

  exhaust(op: Exhaust): Promise<void> {
    this.#batch.exhaust.push(op);
    return this.#durable();
  }

  session(update: SessionUpdate): Promise<void> {
    const key = sessionKey(update);
    const queued = this.#batch.sessions.get(key);
    this.#batch.sessions.set(key, queued ? mergeUpdates(queued, update) : update);
    return this.#durable();
  }

  nasReset(reset: NasReset): Promise<void> {
    this.#batch.resets.push(reset);
    return this.#durable();
  }

  /**
   * Starts the commit of the queued durable writes at the end of the current microtask queue
   * rather than of the I/O turn. For a caller that knows a batch of requests has just queued
   * everything it will queue (the authentication lookups of one turn resolved together): their
   * replies then leave in this turn instead of waiting for the next one's new datagrams.
   */
  commitSoon(): void {
    if (this.#running || this.#batch.waiters.length === 0) return;
    queueMicrotask(() => this.#start());
  }

  /**
   * Writes everything queued and waits for it (the stale-session job, shutdown, tests). Gives up
   * after a failed commit rather than retrying forever against a database that is down.
   */
  async flush(): Promise<void> {
    for (;;) {
      if (this.#running) {
        await this.#running;
        if (this.#failing) return;
      } else if (this.#batch.size > 0) {
        this.#start();
      } else {
        return;
      }
    }
  }

  #durable(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#batch.waiters.push({ resolve, reject });
      this.#schedule(true);
    });
  }

  #schedule(now: boolean): void {
    if (this.#running) return; // the running commit schedules the next one when it ends
    if (now) {
      this.#immediate ??= setImmediate(() => this.#start());
    } else if (!this.#timer && !this.#immediate) {
      this.#timer = setTimeout(() => this.#start(), this.#failing ? RETRY_DELAY_MS : this.options.maxDelayMs);
      this.#timer.unref();
    }
  }

  #start(): void {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#immediate) clearImmediate(this.#immediate);
    this.#timer = null;
    this.#immediate = null;
    if (this.#running || this.#batch.size === 0) return;
    const batch = this.#batch;
    this.#batch = new Batch();
    this.#running = this.#commit(batch).finally(() => {
      this.#running = null;
      if (this.#batch.size > 0) {
        this.#schedule(this.#batch.waiters.length > 0 || this.#batch.authLog.length >= this.options.maxRows);
      }
    });
  }

  async #commit(batch: Batch): Promise<void> {
    try {
      await this.db.transaction().execute((trx) => this.persist(trx, batch));
      this.#failing = false;
      for (const w of batch.waiters) w.resolve();
    } catch (err) {
      this.#failing = true;
      // The requests that waited get no reply (the NAS retries); log rows are kept for the next
      // commit, up to a bound, so a short database outage loses none of them.
      this.logger.error(
        { ...errorFields(err, this.logger), rows: batch.size },
        'radius bookkeeping commit failed',
      );
      for (const w of batch.waiters) w.reject(err);
      const room = (this.options.maxRetainedRows ?? 50_000) - this.#batch.authLog.length;
      if (room > 0) this.#batch.authLog.unshift(...batch.authLog.slice(-room));
    }
  }
}
