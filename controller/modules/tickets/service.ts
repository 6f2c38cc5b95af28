import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import { formatDataLimit, formatDuration } from './limits.js';
import * as q from './queries.js';
import { TicketStatements, type FirstUse, type TicketUsage } from './ticket-statements.js';
import type { RadiusProfilesTable, RadiusTicketsTable, TicketStatus } from './tables.js';
import { TICKET_STATUSES } from './tables.js';
import { generateCodes, type RandomSource } from './ticket-code.js';
import { managerTransition, type AuthTicket, type ManagerStatus } from './ticket-rules.js';

/** A ticket as it leaves the service. */
export interface TicketView {
  code: string;
  password: string;
  profile_id: string;
  profile_name: string;
  status: TicketStatus;
  comment: string | null;
  reseller_name: string | null;
  created_at: string;
  used_at: string | null;
  expires_at: string | null;
  first_nas_id: string | null;
  bytes_used: number;
  seconds_used: number;
}

/** A profile as it leaves the service: limits both as numbers and in the form people write them. */
export interface ProfileView {
  id: string;
  name: string;
  rate_limit: string | null;
  price: number | null;
  data_limit: string | null;
  data_limit_bytes: number | null;
  time_limit: string | null;
  time_limit_seconds: number | null;
  validity: string | null;
  validity_seconds: number | null;
  source: RadiusProfilesTable['source'];
  updated_at: string;
}

export interface CreateTicketsInput {
  /** The profile's id, or its exact name. */
  profileId: string;
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

/** What a router reports of one hotspot user profile. */
export interface RouterProfile {
  name: string;
  rate_limit?: string | null;
}

/** What a manager may set on a profile; absent keeps the value, null clears it. */
export interface ProfileSettings {
  price_xof?: number | null;
  data_limit_bytes?: number | null;
  time_limit_seconds?: number | null;
  validity_seconds?: number | null;
  rate_limit?: string | null;
}

export type TicketCounts = Record<TicketStatus, number>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Codes drawn again after a collision; with 31^8 codes, needing more than a few rounds means a bug.
const MAX_CODE_ROUNDS = 10;

const ticketView = (t: RadiusTicketsTable, profileName: string): TicketView => ({
  code: t.code,
  password: t.password,
  profile_id: t.profile_id,
  profile_name: profileName,
  status: t.status,
  comment: t.comment,
  reseller_name: t.reseller_name,
  created_at: t.created_at,
  used_at: t.used_at,
  expires_at: t.expires_at,
  first_nas_id: t.first_nas_id,
  bytes_used: Number(t.bytes_used),
  seconds_used: Number(t.seconds_used),
});

const orNull = <T>(v: T | null, f: (v: T) => string): string | null => (v === null ? null : f(v));

export const profileView = (p: RadiusProfilesTable): ProfileView => ({
  id: p.id,
  name: p.name,
  rate_limit: p.rate_limit,
  price: p.price_xof,
  data_limit: orNull(p.data_limit_bytes, formatDataLimit),
  data_limit_bytes: p.data_limit_bytes,
  time_limit: orNull(p.time_limit_seconds, formatDuration),
  time_limit_seconds: p.time_limit_seconds,
  validity: orNull(p.validity_seconds, formatDuration),
  validity_seconds: p.validity_seconds,
  source: p.source,
  updated_at: p.updated_at,
});

/**
 * The ticket store: hotspot profiles and vouchers of each tenant. Other modules (resellers, shop,
 * migration, RADIUS) go through this service; every method takes the tenant first.
 */
export class TicketsService {
  readonly #statements: TicketStatements;
  readonly #insert: ReturnType<typeof q.ticketInsertStatement>;

  constructor(
    private readonly db: Db,
    private readonly caps: DialectCapabilities,
    private readonly clock: Clock,
    private readonly random?: RandomSource,
  ) {
    this.#statements = new TicketStatements(db);
    this.#insert = q.ticketInsertStatement(db);
  }

  // ---- profiles -------------------------------------------------------------------------------

  async listProfiles(clientId: string): Promise<ProfileView[]> {
    return (await q.listProfiles(this.db, clientId)).map(profileView);
  }

  async getProfile(clientId: string, name: string): Promise<ProfileView | null> {
    const row = await q.findProfileByName(this.db, clientId, name);
    return row ? profileView(row) : null;
  }

  /** A profile by id or exact name, read in `trx` when given (a batch prices it in its own transaction). */
  async findProfile(clientId: string, ref: string, trx?: Db): Promise<ProfileView | null> {
    const db = trx ?? this.db;
    const row =
      (UUID.test(ref) ? await q.findProfileById(db, clientId, ref) : undefined) ??
      (await q.findProfileByName(db, clientId, ref));
    return row ? profileView(row) : null;
  }

  /** The manager's settings for a profile, creating it (source MANUAL) when the router never reported it. */
  async setProfile(clientId: string, name: string, settings: ProfileSettings): Promise<ProfileView> {
    const patch: q.ProfilePatch = {};
    for (const key of [
      'price_xof',
      'data_limit_bytes',
      'time_limit_seconds',
      'validity_seconds',
      'rate_limit',
    ] as const) {
      if (settings[key] !== undefined) (patch as Record<string, unknown>)[key] = settings[key];
    }
    const row: RadiusProfilesTable = {
      id: newId(),
      client_id: clientId,
      name,
      rate_limit: null,
      data_limit_bytes: null,
      time_limit_seconds: null,
      validity_seconds: null,
      price_xof: null,
      source: 'MANUAL',
      updated_at: iso(this.clock.now()),
      ...patch,
    };
    await q.upsertProfile(this.db, row, patch);
    return profileView((await q.findProfileByName(this.db, clientId, name))!);
  }

  /**
   * The profiles read from a router: unknown names are created (source ROUTER), known ones take
   * the router's rate limit and keep everything the manager set (price, limits, validity).
   */
  async upsertProfilesFromRouter(
    clientId: string,
    profiles: RouterProfile[],
  ): Promise<{ inserted: number; updated: number }> {
    const byName = new Map(profiles.map((p) => [p.name, p]));
    if (byName.size === 0) return { inserted: 0, updated: 0 };
    const now = iso(this.clock.now());
    const rows: RadiusProfilesTable[] = [...byName.values()].map((p) => ({
      id: newId(),
      client_id: clientId,
      name: p.name,
      rate_limit: p.rate_limit ?? null,
      data_limit_bytes: null,
      time_limit_seconds: null,
      validity_seconds: null,
      price_xof: null,
      source: 'ROUTER',
      updated_at: now,
    }));
    return this.db.transaction().execute(async (trx) => {
      const known = new Set<string>();
      const chunk = this.#rowsPerStatement(10);
      for (let i = 0; i < rows.length; i += chunk) {
        const part = rows.slice(i, i + chunk);
        for (const name of await q.profileNames(
          trx,
          clientId,
          part.map((r) => r.name),
        ))
          known.add(name);
        await q.upsertRouterProfiles(trx, part);
      }
      return { inserted: rows.length - known.size, updated: known.size };
    });
  }

  // ---- tickets --------------------------------------------------------------------------------

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
            status: 'ACTIVE',
            comment: input.comment ?? null,
            reseller_name: input.resellerName ?? null,
            created_at: now,
            used_at: null,
            first_nas_id: null,
            bytes_used: 0,
            seconds_used: 0,
            expires_at: null,
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

  // ---- RADIUS side ----------------------------------------------------------------------------

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

  async #resolveProfile(db: Db, clientId: string, ref: string): Promise<RadiusProfilesTable> {
    const profile =
      (UUID.test(ref) ? await q.findProfileById(db, clientId, ref) : undefined) ??
      (await q.findProfileByName(db, clientId, ref));
    if (!profile) throw new AppError('PROFILE_NOT_FOUND', `No profile ${ref}`);
    return profile;
  }

  /** Rows of `columns` values one statement may carry under the dialect's bind-parameter limit. */
  #rowsPerStatement(columns: number): number {
    return Math.max(1, Math.floor((this.caps.maxBindParameters - 16) / columns));
  }
}

export type { FirstUse, TicketUsage } from './ticket-statements.js';
