import { defineModule } from '../define-module.js';
import { salesRoutes } from './routes.js';
import { SalesService } from './service.js';

export const salesModule = defineModule({
  name: 'sales',
  tables: ['sales_records'],
  provides: ['sales'],
  build: ({ db, caps, clock, use }) => {
    // It reads the router through its agent (never a transaction open while it waits).
    const sales = new SalesService(db, caps, clock, {
      allocations: use('allocations'),
      runner: use('runner'),
    });
    return { services: { sales }, routes: (api) => salesRoutes(api, { sales }) };
  },
});
