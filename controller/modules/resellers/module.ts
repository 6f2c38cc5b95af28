import { defineModule } from '../define-module.js';
import { resellersRoutes } from './routes.js';
import { ResellersService } from './service.js';

export const resellersModule = defineModule({
  name: 'resellers',
  tables: ['resellers', 'reseller_tokens', 'reseller_ledger'],
  provides: ['resellers'],
  build: ({ db, caps, clock, use }) => {
    const resellers = new ResellersService(db, caps, clock, use('tickets'), use('profiles'));
    return { services: { resellers }, routes: (api) => resellersRoutes(api, { resellers }) };
  },
});
