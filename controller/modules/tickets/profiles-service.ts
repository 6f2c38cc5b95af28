// Hotspot profiles of each tenant: what the manager sets (price, limits, validity) and what the
// routers report (names, rate limits).
import { iso, type Clock } from '../../core/clock.js';
import { isUuid, newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import { formatDataLimit, formatDuration } from './limits.js';
import * as q from './queries.js';
import { chunks } from '../../core/chunks.js';
import { rowsPerStatement } from './rows-per-statement.js';
import type { RadiusProfilesTable } from './tables.js';

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

/** A profile by id or exact name, read in `db` (a caller's transaction or the pool). */
export async function findProfileRow(
  db: Db,
  clientId: string,
  ref: string,
): Promise<RadiusProfilesTable | undefined> {
  return (
    (isUuid(ref) ? await q.findProfileById(db, clientId, ref) : undefined) ??
    (await q.findProfileByName(db, clientId, ref))
  );
}

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

/** The hotspot profiles of each tenant; every method takes the tenant first. */
export class ProfilesService {
  constructor(
    private readonly db: Db,
    private readonly caps: DialectCapabilities,
    private readonly clock: Clock,
  ) {}

  async listProfiles(clientId: string): Promise<ProfileView[]> {
    return (await q.listProfiles(this.db, clientId)).map(profileView);
  }

  async getProfile(clientId: string, name: string): Promise<ProfileView | null> {
    const row = await q.findProfileByName(this.db, clientId, name);
    return row ? profileView(row) : null;
  }

  /** A profile by id or exact name, read in `trx` when given (a batch prices it in its own transaction). */
  async findProfile(clientId: string, ref: string, trx?: Db): Promise<ProfileView | null> {
    const row = await findProfileRow(trx ?? this.db, clientId, ref);
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
      const chunk = rowsPerStatement(this.caps, 10);
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

  /**
   * The profiles of these names (given sorted), created (source ROUTER, nothing set) where absent:
   * the profiles of the users a router import takes in.
   */
  async routerProfilesByName(clientId: string, names: string[]): Promise<Map<string, RadiusProfilesTable>> {
    const now = iso(this.clock.now());
    const size = rowsPerStatement(this.caps, 10);
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
}
