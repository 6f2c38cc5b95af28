import { defineModule } from '../define-module.js';
import { allocationsRoutes } from './routes.js';
import { AllocationsService } from './service.js';

export const allocationsModule = defineModule({
  name: 'allocations',
  tables: ['allocations', 'agent_reports'],
  provides: ['allocations'],
  build: ({ db, clock, logger, options, publicUrl, use }) => {
    const allocations = new AllocationsService(db, clock, logger, {
      publicUrl,
      // Three missed heartbeats: the instance holding the link has stopped refreshing it.
      linkStaleMs: 3 * (options.hub?.heartbeatMs ?? 30_000),
    });
    return {
      services: { allocations },
      routes: (api) => allocationsRoutes(api, { allocations, commands: use('commands') }),
    };
  },
});
