import { defineModule } from '../define-module.js';
import { takeoverRoutes } from './routes.js';
import { TakeoverService } from './service.js';

export const takeoverModule = defineModule({
  name: 'takeover',
  tables: ['reseller_router_links'],
  provides: ['takeover'],
  build: ({ db, clock, logger, use }) => {
    // It reads the router through its agent (never a transaction open while it waits).
    const takeover = new TakeoverService(db, clock, use('resellers'), use('runner'), logger);
    return { services: { takeover }, routes: (api) => takeoverRoutes(api, { takeover }) };
  },
});
