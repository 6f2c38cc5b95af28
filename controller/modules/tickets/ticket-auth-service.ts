// The ticket store as the RADIUS server reads and moves it: lookups of authentication requests,
// first uses, exhaustion and usage totals, on statements compiled once (ticket-statements.ts).
import type { Db } from '../../db/database.js';
import { TicketStatements, type FirstUse, type TicketUsage } from './ticket-statements.js';
import type { AuthTicket } from './ticket-rules.js';

export class TicketAuthService {
  readonly #statements: TicketStatements;

  constructor(private readonly db: Db) {
    this.#statements = new TicketStatements(db);
  }

  /** Tickets of several User-Names at once (authentication requests that arrived together). */
  findManyForAuth(clientId: string, codes: readonly string[]): Promise<AuthTicket[]> {
    return this.#statements.findManyForAuth(this.db, clientId, codes);
  }

  /** ACTIVE → USED at the first accepted authentications (a group commit's worth); no-op for tickets that moved already. */
  markFirstUse(trx: Db, clientId: string, uses: readonly FirstUse[]): Promise<void> {
    return this.#statements.markFirstUse(trx, clientId, uses);
  }

  /** USED → EXHAUSTED when authentication finds the quota spent. */
  markExhausted(trx: Db, clientId: string, code: string): Promise<void> {
    return this.#statements.markExhausted(trx, clientId, code);
  }

  /**
   * Usage totals computed by RADIUS from the tickets' sessions: sets them, moves tickets seen only
   * through accounting to USED, and USED tickets past their quota to EXHAUSTED. Runs in `trx`.
   */
  async recordUsage(
    trx: Db,
    clientId: string,
    nasId: string,
    at: string,
    usages: readonly TicketUsage[],
  ): Promise<void> {
    await this.#statements.recordUsage(trx, clientId, nasId, at, usages);
  }
}

export type { FirstUse, TicketUsage } from './ticket-statements.js';
