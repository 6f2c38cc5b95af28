// The shop's scheduled jobs.
import type { JobDefinition } from '../../jobs/scheduler.js';
import type { ShopService } from './service.js';

export const SHOP_ROUTER_SYNC_JOB = 'SHOP_ROUTER_SYNC';

/** Every 30 minutes: each shop's router profiles read through its agent, the catalogue and stock kept. */
export function routerSyncJob(deps: { shop: ShopService }): JobDefinition {
  return {
    name: SHOP_ROUTER_SYNC_JOB,
    cadence: { everyMs: 30 * 60_000 },
    // Each router read may wait for its agent: a long fleet run keeps the lease until the next run is due.
    leaseMs: 25 * 60_000,
    run: () => deps.shop.syncAll(),
  };
}
