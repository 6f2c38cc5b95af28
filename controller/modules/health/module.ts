import { VERSION } from '../../version.js';
import { defineModule } from '../define-module.js';
import { healthRoutes } from './routes.js';

export const healthModule = defineModule({
  name: 'health',
  tables: [],
  provides: [],
  build: ({ db, logger }) => ({
    services: {},
    routes: (api) => healthRoutes(api, { db, logger, version: VERSION }),
  }),
});
