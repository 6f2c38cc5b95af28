// Tickets of each tenant: batches with fresh codes, lists, counts and the manager's status changes.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import { findProfileRow } from './profiles-service.js';
import * as q from './queries.js';
import { chunks } from '../../core/chunks.js';
import { rowsPerStatement } from './rows-per-statement.js';
import type { RadiusProfilesTable, RadiusTicketsTable, TicketStatus } from './tables.js';
import { TICKET_STATUSES } from './tables.js';
import { generateCodes, type RandomSource } from './ticket-code.js';
import { managerTransition, type ManagerStatus } from './ticket-rules.js';
import { ticketView, type TicketView } from './ticket-view.js';

export type { TicketView } from './ticket-view.js';

export interface CreateTicketsInput {
  /** The profile's id, or its exact name. */
  profileId: string;
  /** How the caller named the profile (listed back as `profile_id`); default `profileId`. */
  profileRef?: string;
  quantity: number;
  comment?: string | null;
  /** Attribution set by the server for a reseller's batch. */
  resellerName?: string | null;
}

export interface ListTicketsInput {
  status?: TicketStatus;
  reseller?: string;
  limit: number;
  offset: number;
}

export type TicketCounts = Record<TicketStatus, number>;

// Codes drawn again after a collision; with 31^8 codes, needing more than a few rounds means a bug.
const MAX_CODE_ROUNDS = 10;

/**
 * The vouchers of each tenant. Other modules (resellers, migration) go through this service;
 * every method takes the tenant first.
 */
export class TicketsService {
  readonly #insert: ReturnType<typeof q.ticketInsertStatement>;

  constructor(
    private readonly db: Db,
    private readonly caps: DialectCapabilities,
    private readonly clock: Clock,
    private readonly random?: RandomSource,
  ) {
    this.#insert = q.ticketInsertStatement(db);
  }

  /**
   * Creates `quantity` tickets of a profile with random codes unique in the tenant (password =
   * code, as hotspot vouchers are). Runs in `trx` when given, so a caller can debit a balance in
   * the same transaction; otherwise in its own. Throws PROFILE_NOT_FOUND.
   */
  async createTickets(clientId: string, input: CreateTicketsInput, trx?: Db): Promise<TicketView[]> {
    if (!Number.isSafeInteger(input.quantity) || input.quantity < 1) {
      throw new AppError('VALIDATION_ERROR', 'quantity must be a positive integer', {
        details: [{ field: 'quantity', message: 'must be a positive integer' }],
      });
    }
    const work = async (db: Db): Promise<TicketView[]> => {
      const profile = await this.#resolveProfile(db, clientId, input.profileId);
      const now = iso(this.clock.now());
      const created: RadiusTicketsTable[] = [];
      for (let round = 0; created.length < input.quantity; round++) {
        if (round === MAX_CODE_ROUNDS) throw new Error('could not draw unique ticket codes');
        const rows = generateCodes(input.quantity - created.length, this.random).map(
          (code): RadiusTicketsTable => ({
            id: newId(),
            client_id: clientId,
            code,
            password: code,
            profile_id: profile.id,
            profile_ref: input.profileRef ?? input.profileId,
            status: 'ACTIVE',
            comment: input.comment ?? null,
            reseller_name: input.resellerName ?? null,
            created_at: now,
            used_at: null,
            first_nas_id: null,
            bytes_used: 0,
            seconds_used: 0,
            bytes_base: 0,
            seconds_base: 0,
            expires_at: null,
            data_limit_bytes: null,
            time_limit_seconds: null,
          }),
        );
        const written = new Set((await this.#insert.run(db, rows)).map((r) => r.code));
        for (const row of rows) if (written.has(row.code)) created.push(row);
      }
      return created.map((t) => ticketView(t, profile.name));
    };
    return trx ? work(trx) : this.db.transaction().execute(work);
  }

  async listTickets(clientId: string, input: ListTicketsInput): Promise<TicketView[]> {
    const rows = await q.listTickets(this.db, clientId, input);
    return rows.map((r) => ticketView(r, r.profile_name));
  }

  async getTicket(clientId: string, code: string): Promise<TicketView | null> {
    const row = await q.findTicket(this.db, clientId, code);
    return row ? ticketView(row, row.profile_name) : null;
  }

  /** Of some codes, those a buyer may still be given (ACTIVE, never used): not disabled, deleted or used. */
  sellableCodes(clientId: string, codes: readonly string[], trx?: Db): Promise<Set<string>> {
    return q.sellableCodes(trx ?? this.db, clientId, codes);
  }

  /** Tickets per status (USED and EXHAUSTED apart, always), optionally of one reseller. */
  async countTickets(
    clientId: string,
    filter: { resellerName?: string } = {},
    trx?: Db,
  ): Promise<TicketCounts> {
    const counts = Object.fromEntries(TICKET_STATUSES.map((s) => [s, 0])) as TicketCounts;
    for (const r of await q.countByStatus(trx ?? this.db, clientId, filter.resellerName)) {
      counts[r.status] = Number(r.n);
    }
    return counts;
  }

  /** A manager suspends, re-enables or deletes a ticket. TICKET_NOT_FOUND, TICKET_TRANSITION_REFUSED. */
  async setTicketStatus(clientId: string, code: string, requested: ManagerStatus): Promise<TicketView> {
    // Authentication may move the ticket (ACTIVE → USED) between the read and the write: retry once.
    for (let attempt = 0; ; attempt++) {
      const row = await q.findTicket(this.db, clientId, code);
      if (!row) throw new AppError('TICKET_NOT_FOUND', `No ticket ${code}`);
      const to = managerTransition(row.status, requested, row.used_at !== null);
      if (to === null) {
        throw new AppError('TICKET_TRANSITION_REFUSED', `A ${row.status} ticket cannot become ${requested}`);
      }
      if (to === row.status) return ticketView(row, row.profile_name);
      if ((await q.setTicketStatus(this.db, clientId, code, row.status, to)) === 1) {
        return ticketView({ ...row, status: to }, row.profile_name);
      }
      if (attempt === 2)
        throw new AppError('TICKET_TRANSITION_REFUSED', 'The ticket changed meanwhile; retry');
    }
  }

  /**
   * Tickets of the tenant created at or after `sinceIso`, not DELETED, whose code is not in
   * `excludeCodes` (how many were sold through RADIUS since a router switched over, its imported
   * users excluded). Counted in SQL: all since then, less those of the excluded codes.
   */
  async countCreatedSince(
    clientId: string,
    sinceIso: string,
    excludeCodes: ReadonlySet<string>,
  ): Promise<number> {
    const since = new Date(sinceIso);
    if (Number.isNaN(since.getTime())) {
      throw new AppError('VALIDATION_ERROR', 'since must be an ISO 8601 date-time', {
        details: [{ field: 'since', message: 'must be an ISO 8601 date-time' }],
      });
    }
    // Stored timestamps are `toISOString()` text: compare with the same form (`…08:00:00Z` would
    // sort after `…08:00:00.000Z`).
    const at = iso(since);
    let count = await q.countCreatedSince(this.db, clientId, at);
    if (count === 0) return 0;
    for (const part of chunks([...excludeCodes], rowsPerStatement(this.caps, 1))) {
      count -= await q.countCreatedSince(this.db, clientId, at, part);
    }
    return count;
  }

  async #resolveProfile(db: Db, clientId: string, ref: string): Promise<RadiusProfilesTable> {
    const profile = await findProfileRow(db, clientId, ref);
    if (!profile) throw new AppError('PROFILE_NOT_FOUND', `No profile ${ref}`);
    return profile;
  }
}
