import { defineModule } from '../define-module.js';
import * as m0014 from './migrations/0014-radius-relay.js';
import { allocationsRoutes } from './routes.js';
import { AllocationsService } from './service.js';

export const allocationsModule = defineModule({
  name: 'allocations',
  tables: ['allocations', 'agent_reports'],
  migrations: { '0014-radius-relay': m0014 },
  provides: ['allocations'],
  build: ({ db, clock, logger, options, publicUrl, use }) => {
    const allocations = new AllocationsService(
      db,
      clock,
      logger,
      // The hub owns the link rows and is built after this module; views ask it once requests arrive.
      { linksOf: (ids) => use('agentLinks').linksOf(ids) },
      {
        publicUrl,
        // Three missed heartbeats: the instance holding the link has stopped refreshing it.
        linkStaleMs: 3 * (options.hub?.heartbeatMs ?? 30_000),
      },
    );
    return {
      services: { allocations },
      routes: (api) => allocationsRoutes(api, { allocations }),
    };
  },
});
