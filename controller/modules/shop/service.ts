// The ticket shop: catalogue and router sync, store configuration, readiness, and the shop wallet.
// Other modules (the payment path) record sales through `recordSale`. Rules: docs/api/shop.md.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import type { SecretBox } from '../../core/secret-box.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { Logger } from '../../logger.js';
import { errorFields } from '../../logger.js';
import type { AllocationsService } from '../allocations/index.js';
import type { LicencesService } from '../licences/index.js';
import type { NasService } from '../nas/index.js';
import type { ProfilesService, TicketsService } from '../tickets/index.js';
import { routerReadError, ShopCatalogue, type ShopProfileView } from './catalogue-service.js';
import * as q from './queries.js';
import { judgeReadiness, type Readiness } from './readiness.js';
import type { RouterProfileView } from './router-profiles.js';
import type { ShopProfileEntry, StoreConfigBody } from './schemas.js';
import { pickShopRouter, type ShopRouter } from './shop-router.js';
import { StoreConfigs, type StoreConfigView } from './store-config.js';
import { ShopWallet } from './wallet-service.js';

/** The product whose licence lets a tenant sell through the shop (the ticket store's). */
const SHOP_PRODUCT = 'RADIUS';
// Routers read at once by the sync job: each read waits for its agent.
const SYNC_PARALLEL = 8;

export interface ShopServiceDeps {
  db: Db;
  caps: DialectCapabilities;
  clock: Clock;
  logger: Logger;
  tickets: TicketsService;
  profiles: ProfilesService;
  licences: Pick<LicencesService, 'status' | 'listForClient'>;
  allocations: Pick<AllocationsService, 'list' | 'get'>;
  nas: Pick<NasService, 'topology'>;
  runner: AgentCommandRunner;
  secrets: SecretBox;
  /** How long a router read waits for the agent before 503 RADIUS_BRIDGE_UNAVAILABLE. */
  bridgeTimeoutMs: number;
}

export class ShopService {
  readonly catalogue: ShopCatalogue;
  readonly stores: StoreConfigs;
  readonly wallet: ShopWallet;

  constructor(private readonly deps: ShopServiceDeps) {
    this.catalogue = new ShopCatalogue({ ...deps, rowLocks: deps.caps.rowLocks });
    this.stores = new StoreConfigs(deps.db, deps.clock, deps.secrets);
    this.wallet = new ShopWallet(deps.db, deps.caps, deps.clock, deps.tickets);
  }

  listProfiles(clientId: string): Promise<ShopProfileView[]> {
    return this.catalogue.listPushed(clientId);
  }

  /** A push from the app; takes effect at once on the catalogue and the stock engine. */
  async pushProfiles(clientId: string, nasId: string | null | undefined, entries: ShopProfileEntry[]) {
    if (nasId) {
      const topology = await this.deps.nas.topology(clientId);
      const known = [topology.primary, ...topology.members].some((n) => n?.id === nasId);
      if (!known) throw new AppError('NAS_NOT_FOUND', 'No active NAS with this id');
    }
    const counts = await this.catalogue.push(clientId, entries);
    await this.#restock(clientId);
    return counts;
  }

  /**
   * The router's hotspot profiles: read through the agent with `force`, else the last read.
   * @throws ALLOCATION_NOT_FOUND, VPN_TUNNEL_NOT_CONNECTED, RADIUS_BRIDGE_UNAVAILABLE, ROUTER_COMMAND_FAILED
   */
  async hotspotProfiles(
    clientId: string,
    allocationId: string | undefined,
    force: boolean,
  ): Promise<{ result: RouterProfileView[]; read_at: string | null; allocation_id: string | null }> {
    const router = await this.#router(clientId, allocationId);
    if (!force) {
      const last = router ? await this.catalogue.lastRead(clientId, router.allocation_id) : null;
      return {
        result: last?.result ?? [],
        read_at: last?.read_at ?? null,
        allocation_id: router?.allocation_id ?? null,
      };
    }
    if (!router || router.tunnel_status !== 'CONNECTED') throw tunnelNotConnected(router);
    const read = await this.catalogue.readRouter(clientId, router.allocation_id, this.deps.bridgeTimeoutMs);
    if (read.kind !== 'done') throw routerReadError(read, router.allocation_id);
    await this.catalogue.applyRouterRead(clientId, router.allocation_id, read.profiles);
    await this.#restock(clientId);
    const last = await this.catalogue.lastRead(clientId, router.allocation_id);
    return { result: last!.result, read_at: last!.read_at, allocation_id: router.allocation_id };
  }

  /** One tenant's router sync: read (when its agent is linked), catalogue, restock. */
  async syncTenant(clientId: string) {
    const router = await this.#router(clientId);
    let read: string = 'NO_ROUTER';
    let applied = null;
    if (router && router.tunnel_status !== 'CONNECTED') read = 'TUNNEL_DISCONNECTED';
    if (router?.tunnel_status === 'CONNECTED') {
      const out = await this.catalogue.readRouter(clientId, router.allocation_id, this.deps.bridgeTimeoutMs);
      read = out.kind === 'done' ? 'DONE' : out.kind === 'timeout' ? 'TIMEOUT' : 'REFUSED';
      if (out.kind === 'done')
        applied = await this.catalogue.applyRouterRead(clientId, router.allocation_id, out.profiles);
    }
    return { client_id: clientId, read, ...applied, restocked: await this.#restock(clientId) };
  }

  /** The job: every shop tenant synced, a few at a time; one tenant's failure does not stop the others. */
  async syncAll() {
    const tenants = await q.shopTenants(this.deps.db);
    const summary = { tenants: tenants.length, read: 0, failed: 0, restocked: 0 };
    let next = 0;
    const worker = async () => {
      while (next < tenants.length) {
        const clientId = tenants[next++]!;
        try {
          const r = await this.syncTenant(clientId);
          if (r.read === 'DONE') summary.read++;
          summary.restocked += r.restocked;
        } catch (err) {
          summary.failed++;
          this.deps.logger.warn({ clientId, ...errorFields(err) }, 'shop router sync failed');
        }
      }
    };
    await Promise.all(Array.from({ length: SYNC_PARALLEL }, worker));
    return summary;
  }

  getStoreConfig(clientId: string): Promise<StoreConfigView> {
    return this.stores.get(clientId);
  }

  saveStoreConfig(
    clientId: string,
    body: StoreConfigBody,
    mode: 'replace' | 'merge',
  ): Promise<StoreConfigView> {
    return this.stores.save(clientId, body, mode);
  }

  async readiness(clientId: string): Promise<Readiness> {
    // Licence and topology are read once and shared by the checks that need them.
    const [licence, topology] = await Promise.all([
      this.#licence(clientId),
      this.deps.nas.topology(clientId),
    ]);
    const [store, offers, unsold, router] = await Promise.all([
      q.findStore(this.deps.db, clientId),
      this.catalogue.offers(clientId),
      this.catalogue.unsold(clientId),
      this.#router(clientId, undefined, topology),
    ]);
    const active = offers.filter((o) => o.is_active && (o.price ?? 0) > 0);
    return judgeReadiness({
      licence,
      store: { has_profile: Boolean(store?.display_name), store_slug: store?.store_slug ?? null },
      offers_count: active.length,
      vouchers_available: active.reduce((n, o) => n + (unsold.get(o.name) ?? 0), 0),
      stock_total: [...unsold.values()].reduce((a, b) => a + b, 0),
      radius_refill_available: licence.active && hasActiveNas(topology),
      router,
    });
  }

  /** The payment path's entry: one successful sale recorded and, when the platform collected it, credited. */
  recordSale(clientId: string, input: Parameters<ShopWallet['recordSale']>[1]) {
    return this.wallet.recordSale(clientId, input);
  }

  // The stock is made in the ticket store, which delivers through RADIUS: only where RADIUS can.
  async #restock(clientId: string): Promise<number> {
    return (await this.#radiusRefill(clientId)) ? this.catalogue.restock(clientId) : 0;
  }

  async #licence(clientId: string) {
    const status = await this.deps.licences.status(clientId, SHOP_PRODUCT);
    if (!status.active) return { active: false, plan_code: null, expires_at: null };
    const now = iso(this.deps.clock.now());
    const current = (await this.deps.licences.listForClient(clientId))
      .filter(
        (l) =>
          l.product_code === SHOP_PRODUCT &&
          l.status === 'ACTIVE' &&
          l.starts_at <= now &&
          l.expires_at > now,
      )
      .sort((a, b) => b.expires_at.localeCompare(a.expires_at))[0];
    return { active: true, plan_code: current?.plan_code ?? null, expires_at: current?.expires_at ?? null };
  }

  async #radiusRefill(clientId: string): Promise<boolean> {
    if (!(await this.deps.licences.status(clientId, SHOP_PRODUCT)).active) return false;
    return hasActiveNas(await this.deps.nas.topology(clientId));
  }

  async #router(clientId: string, allocationId?: string, known?: Topology): Promise<ShopRouter | null> {
    if (allocationId) {
      const one = await this.deps.allocations.get(clientId, allocationId);
      return pickShopRouter([one], one.id);
    }
    const [allocations, topology] = await Promise.all([
      this.deps.allocations.list(clientId),
      known ?? this.deps.nas.topology(clientId),
    ]);
    return pickShopRouter(allocations, topology.primary?.allocation_id ?? null);
  }
}

type Topology = Awaited<ReturnType<NasService['topology']>>;

const hasActiveNas = (topology: Topology): boolean =>
  topology.primary !== null || topology.members.length > 0;

/** No linked router, or its agent's link is down: answered as an enrolment answers it. */
function tunnelNotConnected(router: ShopRouter | null): AppError {
  return new AppError(
    'VPN_TUNNEL_NOT_CONNECTED',
    router
      ? "The router's agent link is not connected; retry once it is"
      : 'No router is linked to your account through its agent',
    {
      details: {
        allocation_id: router?.allocation_id ?? null,
        tunnel_status: 'DISCONNECTED',
        tunnel_last_seen_at: router?.tunnel_last_seen_at ?? null,
        reason: router ? 'TUNNEL_DISCONNECTED' : 'ROUTER_NOT_LINKED',
      },
    },
  );
}
