import { defineModule } from '../modules/define-module.js';
import { agentRadiusRelay } from './agent-relay.js';
import { staleSessionsJob } from './jobs.js';
import { RadiusService } from './radius-service.js';

export const radiusModule = defineModule({
  name: 'radius',
  tables: ['radius_sessions', 'radius_auth_log'],
  provides: ['radius'],
  build: ({ db, clock, logger, config, options, use }) => {
    const nasDirectory = use('nasDirectory');
    const radius = new RadiusService(
      { db, clock, logger, tickets: use('ticketAuth'), nas: options.nasDirectory ?? nasDirectory },
      { ...options.radius, interimSeconds: config.radiusInterimSeconds },
    );
    // Routers send RADIUS to their site agent, which relays it over its link to the hub.
    use('hub').attachRadiusRelay(
      agentRadiusRelay({
        handle: (kind, msg, source, nas) => radius.handle(kind, msg, source, nas),
        forAllocation: (allocationId) => nasDirectory.forAllocation(allocationId),
        logger,
      }),
    );
    return {
      services: { radius },
      jobs: [staleSessionsJob({ radius, interimSeconds: config.radiusInterimSeconds })],
    };
  },
});
