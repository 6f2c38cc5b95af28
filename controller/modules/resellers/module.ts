import { defineModule } from '../define-module.js';
import { resellersRoutes } from './routes.js';
import { ResellersService } from './service.js';
import { takeoverRoutes } from './takeover-routes.js';
import { TakeoverService } from './takeover-service.js';

export const resellersModule = defineModule({
  name: 'resellers',
  tables: ['resellers', 'reseller_tokens', 'reseller_ledger', 'reseller_router_links'],
  provides: ['resellers', 'takeover'],
  build: ({ db, caps, clock, use }) => {
    const resellers = new ResellersService(db, caps, clock, use('tickets'));
    // It reads the router through its agent (never a transaction open while it waits).
    const takeover = new TakeoverService(db, caps, clock, use('runner'));
    return {
      services: { resellers, takeover },
      routes: (api) => {
        resellersRoutes(api, { resellers });
        takeoverRoutes(api, { takeover });
      },
    };
  },
});
