// Taking a router's local hotspot users into the ticket store (the migration to RADIUS), and the
// inventory that proves they arrived. The rules are in router-import.ts; this is the database part.
import { AppError } from '../../core/app-error.js';
import type { Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import type { ProfilesService } from './profiles-service.js';
import * as q from './queries.js';
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
import { chunks } from '../../core/chunks.js';
import { rowsPerStatement } from './rows-per-statement.js';
import type { RadiusTicketsTable, TicketStatus } from './tables.js';

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

export class RouterImportService {
  readonly #insert: ReturnType<typeof q.ticketInsertStatement>;

  constructor(
    private readonly db: Db,
    private readonly caps: DialectCapabilities,
    private readonly clock: Clock,
    private readonly profiles: ProfilesService,
  ) {
    this.#insert = q.ticketInsertStatement(db);
  }

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
    const profiles = await this.profiles.routerProfilesByName(
      clientId,
      [...new Set(all.map((u) => u.profileName))].sort(),
    );
    const profileOf = (u: ImportedUser) => profiles.get(u.profileName)!;

    const size = Math.min(IMPORT_CHUNK, rowsPerStatement(this.caps, q.TICKET_INSERT_COLUMNS));
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
    for (const part of chunks(page, rowsPerStatement(this.caps, 1))) {
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
}
