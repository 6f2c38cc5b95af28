import { defineModule } from '../define-module.js';
import { nasEnrolBodyGuard } from './body-guard.js';
import { DbNasDirectory } from './db-nas-directory.js';
import { deploymentSweepJob } from './jobs.js';
import { nasRoutes } from './routes.js';
import { NasService } from './service.js';

export const nasModule = defineModule({
  name: 'nas',
  tables: ['nas', 'nas_deployments'],
  provides: ['nas', 'nasDirectory'],
  build: ({ db, caps, clock, logger, config, use }) => {
    const nasDirectory = new DbNasDirectory(db);
    const nas = new NasService({
      db,
      caps,
      clock,
      logger,
      allocations: use('allocations'),
      runner: use('runner'),
      profiles: use('profiles'),
      // The RADIUS server is built after this module (it reads the directory); the topology asks it
      // for open sessions only once requests arrive.
      sessions: {
        openSessionsByNas: (clientId, nasIds) => use('radius').openSessionsByNas(clientId, nasIds),
      },
      directory: nasDirectory,
      target: {
        address: config.radiusRelayAddress,
        authPort: config.radiusRelayAuthPort,
        acctPort: config.radiusRelayAcctPort,
        interimSeconds: config.radiusInterimSeconds,
      },
      bridgeTimeoutMs: config.nasBridgeTimeoutMs,
      // The reseller takeover is built after this module; it is reached once an enrolment ends.
      enrolled: {
        routerEnrolled: (clientId, allocationId) =>
          use('takeover').startAfterEnrolment(clientId, allocationId),
      },
    });
    return {
      services: { nas, nasDirectory },
      routes: (api) => nasRoutes(api, { nas }),
      jobs: [deploymentSweepJob({ nas })],
      beforeBodyParser: [nasEnrolBodyGuard()],
    };
  },
});
