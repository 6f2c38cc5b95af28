import { defineModule } from '../define-module.js';
import { licencesRoutes } from './routes.js';
import { LicencesService } from './service.js';

export const licencesModule = defineModule({
  name: 'licences',
  tables: ['products', 'plans', 'licences'],
  provides: ['licences'],
  build: ({ db, clock, use }) => {
    const licences = new LicencesService(db, clock, use('accounts'));
    return { services: { licences }, routes: (api) => licencesRoutes(api, { licences }) };
  },
});
