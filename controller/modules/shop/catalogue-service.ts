// The shop's catalogue: entries pushed by the app (GET/POST /clients/store/profiles), entries found
// on the router by the sync, the router read itself, and the stock engine that keeps a few tickets
// made in advance for each active offer (through the ticket store's service). Rules: docs/api/shop.md.
import type { HotspotProfile } from '../../../protocol/index.js';
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { ProfilesService, TicketsService } from '../tickets/index.js';
import * as q from './queries.js';
import { routerProfileView, type RouterProfileView } from './router-profiles.js';
import type { ShopProfileEntry } from './schemas.js';
import type { ShopProfilesTable } from './tables.js';

/** Tickets kept in stock for each active offer. */
export const STOCK_TARGET = 10;

/** An entry as GET /clients/store/profiles answers it. */
export interface ShopProfileView {
  name: string;
  price: number | null;
  data_limit: string | null;
  time_limit: string | null;
  validity: string | null;
  display_name: string;
  is_active: boolean;
}

/** A catalogue entry with its price resolved (the override, else the ticket store's price). */
export interface Offer {
  name: string;
  price: number | null;
  is_active: boolean;
  /** The ticket store's profile of this name, when the store has one. */
  profile_id: string | null;
}

export interface CatalogueDeps {
  db: Db;
  clock: Clock;
  tickets: Pick<TicketsService, 'createTickets' | 'sellableCodes'>;
  profiles: Pick<ProfilesService, 'listProfiles' | 'upsertProfilesFromRouter'>;
  runner: Pick<AgentCommandRunner, 'run'>;
  /** The database locks rows (`SELECT … FOR UPDATE`). */
  rowLocks: boolean;
}

export type RouterRead =
  | { kind: 'done'; profiles: HotspotProfile[] }
  | { kind: 'refused'; message: string }
  | { kind: 'timeout'; waitedMs: number };

const entryView = (r: ShopProfilesTable): ShopProfileView => ({
  name: r.name,
  price: r.price_xof === null ? null : Number(r.price_xof),
  data_limit: r.data_limit,
  time_limit: r.time_limit,
  validity: r.validity,
  display_name: r.display_name ?? r.name,
  is_active: Number(r.is_active) === 1,
});

export class ShopCatalogue {
  constructor(private readonly deps: CatalogueDeps) {}

  async listPushed(clientId: string): Promise<ShopProfileView[]> {
    return (await q.listPushed(this.deps.db, clientId)).map(entryView);
  }

  /** A push: named entries upserted (origin APP), `action: delete` entries forgotten, in one transaction. */
  async push(
    clientId: string,
    entries: ShopProfileEntry[],
  ): Promise<{ updated_count: number; deleted_count: number }> {
    const now = iso(this.deps.clock.now());
    const upserts = entries.filter((e) => e.action !== 'delete');
    const deletes = entries.filter((e) => e.action === 'delete').map((e) => e.name);
    return this.deps.db.transaction().execute(async (trx) => {
      if (upserts.length > 0) {
        await q.upsertPushed(
          trx,
          upserts.map((e) => ({
            client_id: clientId,
            name: e.name,
            origin: 'APP',
            price_xof: e.price ?? null,
            data_limit: e.data_limit ?? null,
            time_limit: e.time_limit ?? null,
            validity: e.validity ?? null,
            display_name: e.display_name ?? null,
            is_active: e.is_active === false ? 0 : 1,
            updated_at: now,
          })),
        );
      }
      const deleted = await q.deleteProfiles(trx, clientId, deletes);
      return { updated_count: upserts.length, deleted_count: deleted };
    });
  }

  /** Every catalogue entry with its resolved price. */
  async offers(clientId: string): Promise<Offer[]> {
    const [rows, store] = await Promise.all([
      q.listCatalogue(this.deps.db, clientId),
      this.deps.profiles.listProfiles(clientId),
    ]);
    const byName = new Map(store.map((p) => [p.name, p]));
    return rows.map((r) => {
      const profile = byName.get(r.name);
      return {
        name: r.name,
        price: r.price_xof !== null ? Number(r.price_xof) : (profile?.price ?? null),
        is_active: Number(r.is_active) === 1,
        profile_id: profile?.id ?? null,
      };
    });
  }

  /** Reads the router's hotspot profiles through its agent; the outcome is data, never a throw. */
  async readRouter(clientId: string, allocationId: string, waitMs: number): Promise<RouterRead> {
    const out = await this.deps.runner.run({ clientId, allocationId }, 'hotspot.profiles.list', {}, waitMs);
    if (out.kind === 'done') return { kind: 'done', profiles: out.output.profiles };
    if (out.kind === 'refused') return { kind: 'refused', message: out.fault.message };
    return out;
  }

  /**
   * What a router read changes: the last known state, the ticket store's profiles (names and rate
   * limits; what the manager set is kept), and the catalogue: new names added with their derived
   * price, router-found entries refreshed or dropped with the router's profile, pushed entries kept.
   */
  async applyRouterRead(clientId: string, allocationId: string, profiles: HotspotProfile[]) {
    const now = iso(this.deps.clock.now());
    await q.saveRouterRead(this.deps.db, {
      client_id: clientId,
      allocation_id: allocationId,
      profiles_json: JSON.stringify(profiles.map(routerProfileView)),
      read_at: now,
    });
    const kept = await this.deps.profiles.upsertProfilesFromRouter(
      clientId,
      profiles.map((p) => ({ name: p.name, rate_limit: p.rate_limit ?? null })),
    );
    const onRouter = new Set(profiles.map((p) => p.name));
    const store = (await this.deps.profiles.listProfiles(clientId)).filter((p) => onRouter.has(p.name));
    const before = new Set((await q.listCatalogue(this.deps.db, clientId)).map((r) => r.name));
    await this.deps.db.transaction().execute(async (trx) => {
      if (store.length > 0) {
        await q.upsertFound(
          trx,
          store.map((p) => ({
            client_id: clientId,
            name: p.name,
            origin: 'ROUTER',
            price_xof: p.price,
            data_limit: p.data_limit,
            time_limit: p.time_limit,
            validity: p.validity,
            display_name: null,
            is_active: 1,
            updated_at: now,
          })),
        );
      }
      await q.deleteVanished(trx, clientId, [...onRouter]);
    });
    return {
      router_profiles: profiles.length,
      store_inserted: kept.inserted,
      catalogue_added: store.filter((p) => !before.has(p.name)).length,
    };
  }

  /** The last read of the router, RouterOS-named; null when it was never read. */
  async lastRead(
    clientId: string,
    allocationId: string,
  ): Promise<{ result: RouterProfileView[]; read_at: string } | null> {
    const row = await q.findRouterRead(this.deps.db, clientId, allocationId);
    return row
      ? { result: JSON.parse(row.profiles_json) as RouterProfileView[], read_at: row.read_at }
      : null;
  }

  /**
   * Unsold stock per profile name: only tickets a buyer can still be given. One a manager disabled
   * or deleted in the ticket store (or used elsewhere) is neither counted nor sold, and is replaced.
   */
  async unsold(clientId: string, trx?: Db, profileName?: string): Promise<Map<string, number>> {
    const rows = await sellableStock(this.deps.tickets, trx ?? this.deps.db, clientId, profileName);
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.profile_name, (counts.get(r.profile_name) ?? 0) + 1);
    return counts;
  }

  /**
   * Brings each active, priced offer of the ticket store back to STOCK_TARGET unsold tickets; a
   * hidden entry is never restocked. Answers the tickets made.
   */
  async restock(clientId: string): Promise<number> {
    const [offers, unsold] = await Promise.all([this.offers(clientId), this.unsold(clientId)]);
    let made = 0;
    for (const offer of offers) {
      if (!offer.is_active || !offer.price || offer.profile_id === null) continue;
      const need = STOCK_TARGET - (unsold.get(offer.name) ?? 0);
      if (need <= 0) continue;
      const now = iso(this.deps.clock.now());
      made += await this.deps.db.transaction().execute(async (trx) => {
        // Two restocks of one entry at once (a push during the job) must not both fill it: the
        // entry's row is locked (row locks; SQLite's single writer otherwise) and the stock counted again.
        if (!(await q.lockEntry(trx, clientId, offer.name, this.deps.rowLocks))) return 0;
        const missing = STOCK_TARGET - ((await this.unsold(clientId, trx, offer.name)).get(offer.name) ?? 0);
        if (missing <= 0) return 0;
        const tickets = await this.deps.tickets.createTickets(
          clientId,
          { profileId: offer.profile_id!, profileRef: offer.name, quantity: missing, comment: 'boutique' },
          trx,
        );
        await q.insertStock(
          trx,
          tickets.map((t) => ({
            id: newId(),
            client_id: clientId,
            profile_name: offer.name,
            ticket_code: t.code,
            created_at: now,
            sale_reference: null,
            sold_at: null,
          })),
        );
        return missing;
      });
    }
    return made;
  }
}

/** The unsold stock rows (oldest first) whose tickets can still be handed to a buyer. */
export async function sellableStock(
  tickets: Pick<TicketsService, 'sellableCodes'>,
  db: Db,
  clientId: string,
  profileName?: string,
) {
  const rows = await q.unsoldRows(db, clientId, profileName);
  const sellable = await tickets.sellableCodes(
    clientId,
    rows.map((r) => r.ticket_code),
    db,
  );
  return rows.filter((r) => sellable.has(r.ticket_code));
}

/** The answer of a read for a request: link down and timeout as an enrolment answers them. */
export function routerReadError(read: Exclude<RouterRead, { kind: 'done' }>, allocationId: string): AppError {
  if (read.kind === 'timeout') {
    return new AppError(
      'RADIUS_BRIDGE_UNAVAILABLE',
      'The router did not answer through its agent in time; retry later',
      {
        details: { allocation_id: allocationId, waited_ms: read.waitedMs },
      },
    );
  }
  return new AppError('ROUTER_COMMAND_FAILED', `The router could not be read: ${read.message}`, {
    details: { allocation_id: allocationId },
  });
}
