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
import {
  INVENTORY_DEFAULT_LIMIT,
  INVENTORY_MAX_LIMIT,
  INVENTORY_MISSING_LISTED,
  compareWithStored,
  importedTicket,
  inventoryWindow,
  readRouterUsers,
  type ImportConflict,
  type ImportedUser,
  type RouterImportInput,
  type RouterImportResult,
} from './router-import.js';

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
  /** The ticket's own quotas (an imported router user's); null where its profile's apply. */
  data_limit_bytes: number | null;
  time_limit_seconds: number | null;
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

export interface InventoryPageInput {
  /** The codes expected in the store, any order (duplicates count once). */
  codes: readonly string[];
  /** The last code of the previous page; absent or null: from the start. */
  cursor?: string | null;
  /** Codes per page: default 500, at most 1000. */
  limit?: number;
}

export interface InventoryItem {
  code: string;
  status: TicketStatus;
  /** The profile's name. */
  profile: string;
  /** Never answered: the inventory does not compare passwords. */
  password_matches?: never;
}

export interface InventoryPage {
  /** The tickets of this page's codes found in the store, in page order. */
  items: InventoryItem[];
  /** Codes of this page present in the store. */
  found: number;
  /** Codes of this page absent from the store, at most 100 listed. */
  missing: string[];
  missing_count: number;
  /** The last code of this page when more follow, else null. */
  next_cursor: string | null;
}

/** Router users imported per transaction (fewer when the bind-parameter limit asks for it). */
const IMPORT_CHUNK = 500;

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
  data_limit_bytes: t.data_limit_bytes === null ? null : Number(t.data_limit_bytes),
  time_limit_seconds: t.time_limit_seconds === null ? null : Number(t.time_limit_seconds),
});

const orNull = <T>(v: T | null, f: (v: T) => string): string | null => (v === null ? null : f(v));

/** A profile first seen on a router: its rate limit if known, nothing the manager sets. */
const routerProfileRow = (
  clientId: string,
  name: string,
  rateLimit: string | null,
  now: string,
): RadiusProfilesTable => ({
  id: newId(),
  client_id: clientId,
  name,
  rate_limit: rateLimit,
  data_limit_bytes: null,
  time_limit_seconds: null,
  validity_seconds: null,
  price_xof: null,
  source: 'ROUTER',
  updated_at: now,
});

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

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
    const rows = [...byName.values()].map((p) =>
      routerProfileRow(clientId, p.name, p.rate_limit ?? null, now),
    );
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

  // ---- migration from a router's local users -------------------------------------------------

  /**
   * Takes a router's local hotspot users into the store as tickets (code = user name, exact; own
   * limits as per-ticket quotas; usage, status and reseller tag carried over). `default-trial` is
   * skipped; a missing profile is created (source ROUTER, no limits, no rate). A code already
   * stored with the same password and profile counts as `existing` and is left as it is, so a
   * replayed import changes nothing; a different password or profile, or a DELETED ticket, is a
   * conflict, reported and left as it is. A name given twice counts once; its later copies are
   * compared with the first. Chunks of at most 500 users, each in one transaction: a failure keeps
   * the chunks already committed and a replay completes the rest. Concurrent imports of the same
   * users insert each once (the unique (client_id, code) index decides; the loser re-reads). Users
   * are written in code order, so two imports waiting on each other's uncommitted codes (PostgreSQL)
   * always wait in the same direction and cannot deadlock, whatever order each router listed them in.
   */
  async importFromRouter(clientId: string, input: RouterImportInput): Promise<RouterImportResult> {
    const all = readRouterUsers((input as { users?: unknown } | null)?.users);
    const result: RouterImportResult = { inserted: 0, existing: 0, conflicts: [] };
    const first = new Map<string, ImportedUser>();
    const repeats: ImportedUser[] = [];
    for (const u of all) {
      if (first.has(u.code)) repeats.push(u);
      else first.set(u.code, u);
    }
    if (first.size === 0) return result;
    const now = this.clock.now();
    const profiles = await this.#routerProfilesByName(
      clientId,
      [...new Set(all.map((u) => u.profileName))].sort(),
    );
    const profileOf = (u: ImportedUser) => profiles.get(u.profileName)!;

    const size = Math.min(IMPORT_CHUNK, this.#rowsPerStatement(q.TICKET_INSERT_COLUMNS));
    const ordered = [...first.values()].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    for (const chunk of chunks(ordered, size)) {
      const done = await this.db.transaction().execute(async (trx) => {
        const out: RouterImportResult = { inserted: 0, existing: 0, conflicts: [] };
        const classify = (stored: q.StoredTicket, row: RadiusTicketsTable) => {
          const verdict = compareWithStored(stored, row);
          if (verdict === 'EXISTING') out.existing++;
          else out.conflicts.push({ code: row.code, reason: verdict });
        };
        const storedByCode = async (codes: string[]) =>
          new Map((await q.ticketsByCodes(trx, clientId, codes)).map((r) => [r.code, r]));
        const rows = chunk.map((u) => importedTicket(u, profileOf(u), clientId, now, newId()));
        const stored = await storedByCode(chunk.map((u) => u.code));
        const fresh: RadiusTicketsTable[] = [];
        for (const row of rows) {
          const known = stored.get(row.code);
          if (known) classify(known, row);
          else fresh.push(row);
        }
        if (fresh.length === 0) return out;
        const written = new Set((await this.#insert.run(trx, fresh)).map((r) => r.code));
        out.inserted += written.size;
        // Codes another import committed between our read and our insert: read them again.
        const lost = fresh.filter((r) => !written.has(r.code));
        if (lost.length > 0) {
          const again = await storedByCode(lost.map((r) => r.code));
          for (const row of lost) {
            const known = again.get(row.code);
            if (!known) throw new Error(`ticket ${row.code} was neither inserted nor found`);
            classify(known, row);
          }
        }
        return out;
      });
      result.inserted += done.inserted;
      result.existing += done.existing;
      result.conflicts.push(...done.conflicts);
    }

    for (const u of repeats) {
      const kept = first.get(u.code)!;
      const verdict = compareWithStored(
        { password: kept.password, profile_id: profileOf(kept).id, status: 'ACTIVE' },
        { password: u.password, profile_id: profileOf(u).id },
      );
      if (verdict === 'EXISTING') result.existing++;
      else result.conflicts.push({ code: u.code, reason: verdict } satisfies ImportConflict);
    }
    return result;
  }

  /**
   * One page of the inventory a migration checks its import against: the expected codes sorted
   * as JavaScript compares strings (never by SQL, whose collations differ), the `limit` after
   * `cursor`, looked up with one query. Tickets of any status are found (DELETED included).
   */
  async inventoryPage(clientId: string, input: InventoryPageInput): Promise<InventoryPage> {
    const limit = input.limit ?? INVENTORY_DEFAULT_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > INVENTORY_MAX_LIMIT) {
      throw new AppError('VALIDATION_ERROR', `limit must be an integer from 1 to ${INVENTORY_MAX_LIMIT}`, {
        details: [{ field: 'limit', message: `must be an integer from 1 to ${INVENTORY_MAX_LIMIT}` }],
      });
    }
    const { page, more } = inventoryWindow(input.codes, input.cursor, limit);
    const rows = new Map<string, InventoryItem>();
    for (const part of chunks(page, this.#rowsPerStatement(1))) {
      for (const r of await q.inventoryRows(this.db, clientId, part)) {
        rows.set(r.code, { code: r.code, status: r.status, profile: r.profile });
      }
    }
    const items: InventoryItem[] = [];
    const missing: string[] = [];
    let missingCount = 0;
    for (const code of page) {
      const item = rows.get(code);
      if (item) items.push(item);
      else if (++missingCount <= INVENTORY_MISSING_LISTED) missing.push(code);
    }
    return {
      items,
      found: items.length,
      missing,
      missing_count: missingCount,
      next_cursor: more ? page[page.length - 1]! : null,
    };
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
    for (const part of chunks([...excludeCodes], this.#rowsPerStatement(1))) {
      count -= await q.countCreatedSince(this.db, clientId, at, part);
    }
    return count;
  }

  /** The profiles of these names (given sorted), created (source ROUTER, nothing set) where absent. */
  async #routerProfilesByName(clientId: string, names: string[]): Promise<Map<string, RadiusProfilesTable>> {
    const now = iso(this.clock.now());
    const size = this.#rowsPerStatement(10);
    const byName = new Map<string, RadiusProfilesTable>();
    const read = async (db: Db, wanted: string[]) => {
      for (const part of chunks(wanted, size)) {
        for (const p of await q.profilesByNames(db, clientId, part)) byName.set(p.name, p);
      }
    };
    await read(this.db, names);
    const absent = names.filter((n) => !byName.has(n));
    if (absent.length > 0) {
      // Insert-or-ignore: a profile created meanwhile (a PUT, another import) keeps what it holds.
      await this.db.transaction().execute(async (trx) => {
        for (const part of chunks(absent, size)) {
          await q.insertProfilesIfAbsent(
            trx,
            part.map((name) => routerProfileRow(clientId, name, null, now)),
          );
        }
      });
      await read(this.db, absent);
    }
    return byName;
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
