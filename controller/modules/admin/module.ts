import { defineModule } from '../define-module.js';
import { adminRoutes } from './routes.js';

export const adminModule = defineModule({
  name: 'admin',
  tables: [],
  provides: [],
  build: ({ clock, config, use }) => ({
    services: {},
    routes: (api) =>
      adminRoutes(api, { clock, scheduler: use('scheduler'), jobRunRoute: config.jobRunRoute }),
  }),
});
