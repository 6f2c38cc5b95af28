// What the NOTIFICATIONS_PUSH job runs: sends due pushes with no transaction open across the network. Rows
// are claimed by one conditional UPDATE, sent, then each outcome is written under its claim. A run
// that dies mid-way leaves claims that lapse, and those rows are sent by a later run.
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import * as q from './queries.js';
import { PushRejected, PushSkipped, type PushMessage, type PushSender } from './push-sender.js';

export const MAX_PUSH_ATTEMPTS = 5;

/** Wait after failed attempt n (1-based): 30 s, 2 min, 8 min, 32 min. */
export const retryDelayMs = (attempts: number): number => 30_000 * 4 ** Math.max(0, attempts - 1);

export interface DispatcherOptions {
  /** Rows claimed per transaction. */
  batch?: number;
  /** Rows sent per run at most, so one run never holds the job for long. */
  maxPerRun?: number;
  /** Sends in flight at once. */
  concurrency?: number;
  /** How long a claim holds: longer than any send of a batch takes. */
  claimMs?: number;
}

export interface DispatchReport {
  sent: number;
  retrying: number;
  failed: number;
  skipped: number;
}

type ClaimedRow = Awaited<ReturnType<typeof q.claimed>>[number];

export class PushDispatcher {
  readonly #batch: number;
  readonly #maxPerRun: number;
  readonly #concurrency: number;
  readonly #claimMs: number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly sender: PushSender,
    private readonly logger: Logger,
    options: DispatcherOptions = {},
  ) {
    this.#batch = options.batch ?? 50;
    this.#maxPerRun = options.maxPerRun ?? 500;
    this.#concurrency = options.concurrency ?? 4;
    this.#claimMs = options.claimMs ?? 120_000;
  }

  async run(now: Date): Promise<DispatchReport> {
    const report: DispatchReport = { sent: 0, retrying: 0, failed: 0, skipped: 0 };
    let handled = 0;
    while (handled < this.#maxPerRun) {
      const claimId = newId();
      const rows = await this.#claim(now, claimId, Math.min(this.#batch, this.#maxPerRun - handled));
      if (rows.length === 0) break;
      for (let i = 0; i < rows.length; i += this.#concurrency) {
        const slice = rows.slice(i, i + this.#concurrency);
        const states = await Promise.all(slice.map((row) => this.#deliver(row, claimId)));
        for (const s of states) report[s] += 1;
      }
      handled += rows.length;
    }
    return report;
  }

  // No explicit transaction: the claiming UPDATE re-checks its conditions row by row, so it is
  // atomic on its own; a row another run claimed between the SELECT and the UPDATE is left out.
  async #claim(now: Date, claimId: string, limit: number): Promise<ClaimedRow[]> {
    const at = iso(now);
    const until = iso(new Date(now.getTime() + this.#claimMs));
    const ids = (await q.dueIds(this.db, at, limit)).map((r) => r.id);
    if (ids.length === 0) return [];
    await q.claim(this.db, ids, at, claimId, until);
    return q.claimed(this.db, claimId);
  }

  async #deliver(row: ClaimedRow, claimId: string): Promise<keyof DispatchReport> {
    const attempts = row.push_attempts + 1;
    let outcome: q.PushOutcome;
    let state: keyof DispatchReport;
    try {
      await this.sender.send(row.client_id, pushMessage(row));
      outcome = {
        push_state: 'SENT',
        push_attempts: attempts,
        push_sent_at: iso(this.clock.now()),
        push_error: null,
        push_next_at: null,
      };
      state = 'sent';
    } catch (err) {
      // A sender's failure is data about this push, whatever it is; it never ends the run.
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof PushSkipped) {
        outcome = {
          push_state: 'SKIPPED',
          push_attempts: attempts,
          push_sent_at: null,
          push_error: err.reason,
          push_next_at: null,
        };
        state = 'skipped';
      } else if (err instanceof PushRejected || attempts >= MAX_PUSH_ATTEMPTS) {
        outcome = {
          push_state: 'FAILED',
          push_attempts: attempts,
          push_sent_at: null,
          push_error: message,
          push_next_at: null,
        };
        state = 'failed';
      } else {
        const next = new Date(this.clock.now().getTime() + retryDelayMs(attempts));
        outcome = {
          push_state: 'PENDING',
          push_attempts: attempts,
          push_sent_at: null,
          push_error: message,
          push_next_at: iso(next),
        };
        state = 'retrying';
      }
      if (state !== 'skipped') this.logger.warn({ id: row.id, attempts, err: message }, 'push not delivered');
    }
    await q.recordPush(this.db, row.id, claimId, outcome);
    return state;
  }
}

/** The push of a row: its title and body, its data as FCM's flat string map (with `type`). */
export function pushMessage(row: Pick<ClaimedRow, 'type' | 'title' | 'body' | 'data'>): PushMessage {
  const data: Record<string, string> = {};
  const parsed = JSON.parse(row.data) as Record<string, unknown>;
  for (const [k, v] of Object.entries(parsed)) {
    if (v === null || v === undefined) continue;
    data[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  data.type = row.type;
  return { title: row.title, body: row.body, data };
}
