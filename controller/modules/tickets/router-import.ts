// Taking a router's local hotspot users into the ticket store (the migration to RADIUS), and the
// paging of the inventory that proves they arrived. Pure: what a user becomes, how it compares
// with a ticket already stored, which codes a page holds. The service does the database part.
import type { HotspotUser } from '../../../protocol/index.js';
import { AppError, type FieldIssue } from '../../core/app-error.js';
import { sellerOf } from './reseller-name.js';
import type { RadiusProfilesTable, RadiusTicketsTable, TicketStatus } from './tables.js';
import { effectiveLimit, importedStatus } from './ticket-rules.js';

/**
 * One `/ip/hotspot/user` of a router as the agent exports it (the protocol's shape): `name` becomes
 * the ticket code, kept exactly; no password becomes ''; `limit_uptime` / `limit_bytes_total`
 * become the ticket's own quotas (0 or absent: the profile's); `uptime_seconds` and `bytes_in` +
 * `bytes_out`, what was already consumed on the router, become its usage base.
 */
export type RouterUserImport = HotspotUser;

export interface RouterImportInput {
  users: readonly RouterUserImport[];
  /** The time comes from the service's clock, never from the caller. */
  now?: never;
}

export type ImportConflictReason = 'PASSWORD_DIFFERS' | 'PROFILE_DIFFERS' | 'DELETED';

export interface ImportConflict {
  code: string;
  reason: ImportConflictReason;
}

export interface RouterImportResult {
  inserted: number;
  existing: number;
  conflicts: ImportConflict[];
}

/** Router users never imported (RouterOS's built-in trial user). */
export const SKIPPED_ROUTER_USERS: ReadonlySet<string> = new Set(['default-trial']);

/** A router user checked and put in store terms. */
export interface ImportedUser {
  code: string;
  password: string;
  profileName: string;
  comment: string | null;
  resellerName: string | null;
  dataLimitBytes: number | null;
  timeLimitSeconds: number | null;
  disabled: boolean;
  bytesUsed: number;
  secondsUsed: number;
}

const MAX_ISSUES = 20;

const isCount = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER;

/** A RouterOS limit: 0 means "no limit" there, so it leaves the profile's quota in force. */
const ownLimit = (v: number | undefined): number | null =>
  v === undefined || Math.floor(v) < 1 ? null : Math.floor(v);

/**
 * Checks every user before anything is written (an import is refused whole, with the first
 * problems listed, rather than half done) and returns them in store terms, `default-trial` left out.
 */
export function readRouterUsers(users: unknown): ImportedUser[] {
  if (!Array.isArray(users)) {
    throw new AppError('VALIDATION_ERROR', 'users must be a list', {
      details: [{ field: 'users', message: 'must be a list' }],
    });
  }
  const issues: FieldIssue[] = [];
  const out: ImportedUser[] = [];
  const problem = (i: number, field: string, message: string) => {
    if (issues.length < MAX_ISSUES) issues.push({ field: `users[${i}].${field}`, message });
  };
  users.forEach((raw: unknown, i) => {
    const u = (raw ?? {}) as Record<string, unknown>;
    let ok = true;
    const need = (test: boolean, field: string, message: string) => {
      if (!test) {
        ok = false;
        problem(i, field, message);
      }
    };
    need(typeof u.name === 'string' && u.name !== '', 'name', 'must be a non-empty string');
    need(typeof u.profile === 'string' && u.profile !== '', 'profile', 'must be a non-empty string');
    need(u.password === undefined || typeof u.password === 'string', 'password', 'must be a string');
    need(
      u.comment === undefined || u.comment === null || typeof u.comment === 'string',
      'comment',
      'must be a string',
    );
    need(typeof u.disabled === 'boolean', 'disabled', 'must be true or false');
    for (const field of ['limit_uptime', 'limit_bytes_total', 'uptime_seconds', 'bytes_in', 'bytes_out']) {
      need(u[field] === undefined || isCount(u[field]), field, 'must be a non-negative number');
    }
    if (!ok || SKIPPED_ROUTER_USERS.has(u.name as string)) return;
    const user = u as unknown as RouterUserImport;
    const comment = typeof user.comment === 'string' ? user.comment : null;
    out.push({
      code: user.name,
      password: user.password ?? '',
      profileName: user.profile,
      comment,
      resellerName: sellerOf(comment ?? undefined) ?? null,
      dataLimitBytes: ownLimit(user.limit_bytes_total),
      timeLimitSeconds: ownLimit(user.limit_uptime),
      disabled: user.disabled,
      bytesUsed: Math.floor(user.bytes_in ?? 0) + Math.floor(user.bytes_out ?? 0),
      secondsUsed: Math.floor(user.uptime_seconds ?? 0),
    });
  });
  if (issues.length > 0) {
    throw new AppError(
      'VALIDATION_ERROR',
      `Invalid router users (${issues[0]!.field}: ${issues[0]!.message})`,
      {
        details: issues,
      },
    );
  }
  return out;
}

/**
 * The ticket a router user becomes. A user that consumed something is USED from the import on
 * (its real first use is unknown), its validity counted from then as a first authentication would;
 * EXHAUSTED when that consumption already reaches its effective quota; DISABLED when the router
 * had it disabled (used_at still set when it consumed, so re-enabling gives back USED).
 */
export function importedTicket(
  user: ImportedUser,
  profile: Pick<RadiusProfilesTable, 'id' | 'data_limit_bytes' | 'time_limit_seconds' | 'validity_seconds'>,
  clientId: string,
  now: Date,
  id: string,
): RadiusTicketsTable {
  const at = now.toISOString();
  const status: TicketStatus = importedStatus(
    { disabled: user.disabled, bytes_used: user.bytesUsed, seconds_used: user.secondsUsed },
    {
      data_limit_bytes: effectiveLimit(user.dataLimitBytes, num(profile.data_limit_bytes)),
      time_limit_seconds: effectiveLimit(user.timeLimitSeconds, num(profile.time_limit_seconds)),
    },
  );
  const consumed = user.bytesUsed > 0 || user.secondsUsed > 0;
  const validity = num(profile.validity_seconds);
  return {
    id,
    client_id: clientId,
    code: user.code,
    password: user.password,
    profile_id: profile.id,
    profile_ref: null,
    status,
    comment: user.comment,
    reseller_name: user.resellerName,
    created_at: at,
    used_at: consumed ? at : null,
    first_nas_id: null,
    bytes_used: user.bytesUsed,
    seconds_used: user.secondsUsed,
    // Accounting adds its sessions to these, so the router's usage is never given back.
    bytes_base: user.bytesUsed,
    seconds_base: user.secondsUsed,
    expires_at:
      consumed && validity !== null ? new Date(now.getTime() + validity * 1000).toISOString() : null,
    data_limit_bytes: user.dataLimitBytes,
    time_limit_seconds: user.timeLimitSeconds,
  };
}

// bigint columns arrive as numbers from both drivers; this keeps a stray string from concatenating.
const num = (v: number | null): number | null => (v === null ? null : Number(v));

/**
 * How a router user compares with the ticket already stored under its code: the same password
 * and profile make it already imported; otherwise a conflict, left untouched. A DELETED ticket is
 * a conflict whatever it holds (DELETED is final: importing must not bring it back).
 */
export function compareWithStored(
  stored: Pick<RadiusTicketsTable, 'password' | 'profile_id' | 'status'>,
  wanted: Pick<RadiusTicketsTable, 'password' | 'profile_id'>,
): 'EXISTING' | ImportConflictReason {
  if (stored.status === 'DELETED') return 'DELETED';
  if (stored.password !== wanted.password) return 'PASSWORD_DIFFERS';
  if (stored.profile_id !== wanted.profile_id) return 'PROFILE_DIFFERS';
  return 'EXISTING';
}

// ---- inventory ------------------------------------------------------------------------------

export const INVENTORY_DEFAULT_LIMIT = 500;
export const INVENTORY_MAX_LIMIT = 1000;
/** Missing codes listed per page at most (all are counted). */
export const INVENTORY_MISSING_LISTED = 100;

/** Whether `codes` are distinct and in the order `<` gives. */
function inOrder(codes: readonly string[]): boolean {
  for (let i = 1; i < codes.length; i++) if (!(codes[i - 1]! < codes[i]!)) return false;
  return true;
}

/**
 * The codes of one inventory page: the expected codes, distinct, in the order JavaScript's `<`
 * gives strings (UTF-16 code units; never a database collation, which differs between SQLite,
 * PostgreSQL and locales), the `limit` that follow `cursor`.
 */
export function inventoryWindow(
  codes: readonly string[],
  cursor: string | null | undefined,
  limit: number,
): { page: string[]; more: boolean } {
  // default sort: UTF-16 code units, as `<`; codes given in that order already (a caller paging
  // through the same list) are not sorted again for every page
  const sorted = inOrder(codes) ? codes : [...new Set(codes)].sort();
  let start = 0;
  if (cursor !== null && cursor !== undefined) {
    let hi = sorted.length;
    while (start < hi) {
      const mid = (start + hi) >>> 1;
      if (sorted[mid]! <= cursor) start = mid + 1;
      else hi = mid;
    }
  }
  return { page: sorted.slice(start, start + limit), more: start + limit < sorted.length };
}
