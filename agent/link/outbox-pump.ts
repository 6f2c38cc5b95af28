// Sends the outbox over a live session, oldest first, with at most `batchSize` reports awaiting
// report_ack: a long-offline agent drains in steady batches instead of flooding the controller,
// and a controller that withholds acks sees no more than one batch. Reports are deleted only on
// report_ack; anything in flight when the link drops is sent again on the next connection (the
// controller stores reports by id, so that is safe).
import { MAX_BATCH_MESSAGES, type MessageBody } from '../../protocol/index.js';
import type { Outbox } from '../state/outbox.js';
import type { LinkSession } from './link-session.js';

type Report = MessageBody<'report'>;

interface PumpLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export class OutboxPump {
  #session: LinkSession | undefined;
  // Ids sent on the current session and not yet acknowledged.
  #inFlight = new Set<string>();
  #running = false;
  #again = false;

  constructor(
    private readonly outbox: Outbox,
    private readonly batchSize: number,
    private readonly logger: PumpLogger,
  ) {}

  /** Number of reports sent on this session and not yet acknowledged. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  attach(session: LinkSession): void {
    this.#session = session;
    this.#inFlight = new Set();
  }

  detach(): void {
    this.#session = undefined;
    this.#inFlight = new Set();
  }

  /** Deletes acknowledged reports, then sends more. */
  acknowledge(ids: readonly string[]): void {
    const inFlight = this.#inFlight;
    void this.outbox
      .remove(ids)
      .then(() => {
        for (const id of ids) inFlight.delete(id);
        this.pump();
      })
      .catch((err: unknown) =>
        this.logger.warn({ err: (err as Error).message }, 'outbox: could not delete acknowledged reports'),
      );
  }

  /** Sends what the window allows; safe to call any time, from anywhere. */
  pump(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    void this.#drain()
      .catch((err: unknown) => this.logger.warn({ err: (err as Error).message }, 'outbox: sending failed'))
      .finally(() => {
        this.#running = false;
        if (this.#again) {
          this.#again = false;
          this.pump();
        }
      });
  }

  // What the window allows leaves in one frame (a batch, from version 2; at most what a batch
  // carries): a backlog after an outage goes out a window at a time and the controller stores it
  // together, where one report a frame would cost a commit each. A lone report is a frame of its own.
  async #drain(): Promise<void> {
    const session = this.#session;
    const inFlight = this.#inFlight;
    if (session === undefined) return;
    let ready: Report[] = [];
    const flush = async () => {
      const reports = ready;
      ready = [];
      if (reports.length === 0) return true;
      for (const r of reports) inFlight.add(r.id);
      return session.sendReports(reports);
    };
    for (const entry of this.outbox.entries()) {
      if (inFlight.size + ready.length >= this.batchSize || this.#session !== session || !session.isOpen)
        break;
      if (inFlight.has(entry.id)) continue;
      const report = await this.outbox.read(entry);
      if (report === undefined || this.#session !== session) continue;
      ready.push(report);
      if (ready.length === MAX_BATCH_MESSAGES && !(await flush())) return;
    }
    if (this.#session === session && session.isOpen) await flush();
  }
}
