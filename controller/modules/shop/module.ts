import { defineModule } from '../define-module.js';
import { routerSyncJob } from './jobs.js';
import * as m0020 from './migrations/0020-shop.js';
import { shopRoutes } from './routes.js';
import { ShopService } from './service.js';

export const shopModule = defineModule({
  name: 'shop',
  tables: [
    'shop_stores',
    'shop_profiles',
    'shop_stock',
    'shop_router_reads',
    'shop_wallets',
    'shop_ledger',
    'shop_sales',
    'shop_daily_totals',
    'shop_withdrawals',
  ],
  migrations: { '0020-shop': m0020 },
  provides: ['shop'],
  build: ({ db, caps, clock, logger, config, secrets, use }) => {
    const shop = new ShopService({
      db,
      caps,
      clock,
      logger,
      tickets: use('tickets'),
      profiles: use('profiles'),
      licences: use('licences'),
      allocations: use('allocations'),
      nas: use('nas'),
      runner: use('runner'),
      secrets,
      bridgeTimeoutMs: config.nasBridgeTimeoutMs,
    });
    return {
      services: { shop },
      routes: (api) => shopRoutes(api, { shop, accounts: use('accounts') }),
      jobs: [routerSyncJob({ shop })],
    };
  },
});
