import { defineModule } from '../define-module.js';
import { nasEnrolBodyGuard } from './body-guard.js';
import { DbNasDirectory } from './db-nas-directory.js';
import { deploymentSweepJob } from './jobs.js';
import { RadiusTargets } from './radius-targets.js';
import { nasRoutes } from './routes.js';
import { NasService } from './service.js';

// A wildcard bind says nothing of the address a router must send to.
const WILDCARDS = new Set(['0.0.0.0', '::', '']);

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
      targets: new RadiusTargets({
        relayFallback: {
          address: config.radiusRelayAddress,
          authPort: config.radiusRelayAuthPort,
          acctPort: config.radiusRelayAcctPort,
        },
        interimSeconds: config.radiusInterimSeconds,
        // Direct UDP RADIUS listens (or not) once the controller listens; asked per request.
        direct: {
          endpoint: () => {
            const bound = use('radius').addresses;
            const address =
              config.radiusDirectAddress ??
              (WILDCARDS.has(config.radiusHost) ? undefined : config.radiusHost);
            return bound && address
              ? { address, authPort: bound.auth.port, acctPort: bound.acct.port }
              : null;
          },
        },
      }),
      bridgeTimeoutMs: config.nasBridgeTimeoutMs,
      // The reseller takeover is built after this module; it is reached once an enrolment ends.
      enrolled: {
        routerEnrolled: (clientId, allocationId) =>
          use('takeover').startAfterEnrolment(clientId, allocationId),
      },
      // Network-quality monitoring is built after this module; it issues the telemetry token.
      bridgeTokens: {
        issue: (clientId, nasId, allocationId) => use('qoe').issueBridgeToken(clientId, nasId, allocationId),
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
