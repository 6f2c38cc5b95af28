// Authentication lookups of requests that arrive together (one I/O turn) go to the database as
// one query per tenant instead of one per request: each statement run costs more than the rows.
// A lookup waits at most until the end of the current turn.
import type { AuthTicket, TicketAuthService } from '../modules/tickets/index.js';
import { padToStatementSize } from './statement-padding.js';

interface Pending {
  code: string;
  resolve(ticket: AuthTicket | undefined): void;
  reject(err: unknown): void;
}

export class TicketLookup {
  #pending = new Map<string, Pending[]>();
  #scheduled = false;

  constructor(
    private readonly tickets: TicketAuthService,
    /** Called once the requests of a batch have been given their tickets (and have run on). */
    private readonly resolved: () => void = () => undefined,
  ) {}

  find(clientId: string, code: string): Promise<AuthTicket | undefined> {
    return new Promise((resolve, reject) => {
      const list = this.#pending.get(clientId);
      if (list) list.push({ code, resolve, reject });
      else this.#pending.set(clientId, [{ code, resolve, reject }]);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#run());
      }
    });
  }

  #run(): void {
    const pending = this.#pending;
    this.#pending = new Map();
    this.#scheduled = false;
    for (const [clientId, waiting] of pending) {
      // Distinct codes, padded to a compiled size (a repeated code in the IN list changes nothing).
      const codes = padToStatementSize([...new Set(waiting.map((w) => w.code))]);
      this.tickets.findManyForAuth(clientId, codes).then(
        (rows) => {
          const byCode = new Map(rows.map((r) => [r.code, r]));
          for (const w of waiting) w.resolve(byCode.get(w.code));
          // The requests resume in the microtasks just queued, before this one.
          queueMicrotask(this.resolved);
        },
        (err: unknown) => {
          for (const w of waiting) w.reject(err);
        },
      );
    }
  }
}
