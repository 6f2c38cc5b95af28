import { loadOrCreateSecret } from '../../secrets.js';
import { defineModule } from '../define-module.js';
import { JwtIssuer } from './jwt.js';
import { accountsRoutes } from './routes.js';
import { AccountsService } from './service.js';

export const accountsModule = defineModule({
  name: 'accounts',
  tables: ['accounts'],
  provides: ['accounts'],
  build: ({ db, clock, config }) => {
    const secret = config.jwtSecret ?? loadOrCreateSecret(config.dataDir, 'jwt-secret');
    const accounts = new AccountsService(db, clock, new JwtIssuer(secret, config.jwtTtlDays, clock));
    return { services: { accounts }, routes: (api) => accountsRoutes(api, { accounts }) };
  },
});
