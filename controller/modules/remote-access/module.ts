import { defineModule } from '../define-module.js';
import { LinuxVpnHost } from './linux-vpn-host.js';
import { parseLegacyHosts } from './legacy-transports.js';
import * as m0030 from './migrations/0030-remote-access.js';
import * as m0031 from './migrations/0031-remote-access-credentials.js';
import { CredentialsService } from './credentials-service.js';
import { credentialsHandoverJob, rescueReadJob } from './jobs.js';
import { DEFAULT_PROBE_OPTIONS, ProbeService } from './probe-service.js';
import { RescueService } from './rescue-service.js';
import { remoteAccessRoutes } from './routes.js';
import { RemoteAccessService } from './service.js';
import { UnconfiguredVpnHost, type VpnHost } from './vpn-host.js';

export const remoteAccessModule = defineModule({
  name: 'remote-access',
  tables: [
    'remote_access_slots',
    'remote_access_profiles',
    'remote_access_channels',
    'remote_access_attempts',
  ],
  migrations: { '0030-remote-access': m0030, '0031-remote-access-credentials': m0031 },
  provides: ['remoteAccess'],
  build: ({ db, clock, logger, config, options, secrets: box, use }) => {
    const vpnHost: VpnHost =
      options.remoteAccess?.vpnHost ??
      (config.vpnHost
        ? new LinuxVpnHost({
            host: config.vpnHost,
            wireguardInterface: config.vpnWireguardInterface,
            sstpPort: config.vpnSstpPort,
            chapSecretsPath: config.vpnChapSecrets,
            now: () => clock.now(),
          })
        : new UnconfiguredVpnHost());
    const allocations = use('allocations');
    const remoteAccess = new RemoteAccessService({
      db,
      clock,
      logger,
      allocations,
      vpnHost,
      box,
      migration: use('migration'),
      legacyHosts: parseLegacyHosts(config.vpnLegacyWireguardHosts),
    });
    const probeOptions = { ...DEFAULT_PROBE_OPTIONS, ...options.remoteAccess?.probe };
    const routerDeps = {
      db,
      clock,
      logger,
      allocations,
      runner: use('runner'),
      box,
      commandWaitMs: probeOptions.commandWaitMs,
    };
    const rescue = new RescueService(routerDeps);
    const credentials = new CredentialsService(routerDeps);
    const probes = new ProbeService({
      db,
      clock,
      logger,
      allocations,
      runner: use('runner'),
      vpnHost,
      box,
      options: probeOptions,
    });
    return {
      services: { remoteAccess },
      routes: (api) => remoteAccessRoutes(api, { remoteAccess, probes, rescue, credentials }),
      jobs: [rescueReadJob({ rescue }), credentialsHandoverJob({ credentials })],
    };
  },
});
