// Sends the outbox over a live session, oldest first, with at most `batchSize` reports awaiting
// report_ack: a long-offline agent drains in steady batches instead of flooding the controller,
// and a controller that withholds acks sees no more than one batch. Reports are deleted only on
// report_ack; anything in flight when the link drops is sent again on the next connection (the
// controller stores reports by id, so that is safe).
import type { Outbox } from '../state/outbox.js';
import type { LinkSession } from './link-session.js';

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

  async #drain(): Promise<void> {
    const session = this.#session;
    const inFlight = this.#inFlight;
    if (session === undefined) return;
    for (const entry of this.outbox.entries()) {
      if (inFlight.size >= this.batchSize || this.#session !== session || !session.isOpen) return;
      if (inFlight.has(entry.id)) continue;
      const report = await this.outbox.read(entry);
      if (report === undefined || this.#session !== session) continue;
      inFlight.add(entry.id);
      if (!(await session.send('report', report))) return;
    }
  }
}
