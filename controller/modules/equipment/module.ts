import { loadOrCreateSecret } from '../../secrets.js';
import { defineModule } from '../define-module.js';
import { accessHostMiddleware } from './access-host.js';
import { DeviceChecks } from './device-checks.js';
import { DeviceWatch } from './device-watch.js';
import { equipmentMonitorJob } from './jobs.js';
import * as m0050 from './migrations/0050-equipment.js';
import { relayMiddleware } from './relay.js';
import { RelayPool } from './relay-pool.js';
import { equipmentRoutes } from './routes.js';
import { topologyBlock } from './topology-block.js';
import { EquipmentService } from './service.js';
import { WebAccessGates } from './web-access-gates.js';
import { WebAccessService } from './web-access.js';

/** How long the relay waits for a device to start answering. */
const RELAY_TIMEOUT_MS = 30_000;

/**
 * A kept connection to a device closes after this idle time: under the 5 s many embedded servers
 * (and Node's) keep theirs, so the relay seldom reuses one the device is closing (docs/decisions.md).
 */
const RELAY_KEEP_IDLE_MS = 4_000;
/**
 * Idle connections kept per device: as many as one link carries streams (16). Fewer made a burst
 * close the rest as each answer ended and open new ones for the next requests (a stream opening
 * and closing both ways, two TCP connections on the site); the agent's refusal of a stream while
 * idle ones hold its places closes those (relay.ts), so keeping them costs no other device a place.
 */
const RELAY_KEEP_PER_DEVICE = 16;

/** How long a request waits for the agent to run a router change or read. */
const COMMAND_WAIT_MS = 20_000;

/** A router's management ports close once nothing crossed them for this long (docs/decisions.md). */
const WEB_ACCESS_IDLE_MS = 5 * 60_000;

export const equipmentModule = defineModule({
  name: 'equipment',
  tables: ['equipment_devices'],
  migrations: { '0050-equipment': m0050 },
  provides: ['equipment'],
  build: ({ db, caps, clock, logger, config, options, use, credentialFailures }) => {
    const log = logger.child({ module: 'equipment' });
    const deps = {
      allocations: use('allocations'),
      nas: use('nas'),
      runner: use('runner'),
      licences: use('licences'),
      notifications: use('notifications'),
    };
    const equipment = new EquipmentService(db, caps, clock, log, deps, {
      quotaEnforced: config.equipmentQuotaEnforced,
      ports: config.equipmentPorts,
      commandWaitMs: COMMAND_WAIT_MS,
    });
    const checks = new DeviceChecks(db, clock, equipment.owners, equipment.pins);
    const watch = new DeviceWatch(db, log, deps, equipment.pins);
    const pool = new RelayPool({
      hub: use('hub'),
      idleMs: options.equipment?.relayKeepIdleMs ?? RELAY_KEEP_IDLE_MS,
      maxIdlePerDevice: RELAY_KEEP_PER_DEVICE,
    });
    equipment.onClose(() => pool.destroy());
    const idleMs = options.equipment?.webAccessIdleMs ?? WEB_ACCESS_IDLE_MS;
    const gates = new WebAccessGates({
      hub: use('hub'),
      bindHost: config.webAccessHost ?? config.host,
      ports: config.webAccessPorts,
      idleMs,
      logger: log,
      releaseIdle: (allocationId) => pool.closeIdle(allocationId),
    });
    equipment.onClose(() => gates.close());
    const webAccess = new WebAccessService({
      deps,
      owners: equipment.owners,
      hub: use('hub'),
      gates,
      idleMs,
      vpnHost: config.vpnHost,
      commandWaitMs: COMMAND_WAIT_MS,
    });
    // The RADIUS topology (the NAS module's route) shows the PRIMARY's devices, its web access and
    // the quota.
    deps.nas.addTopologyExtension(topologyBlock(db, deps, equipment, webAccess));
    // A router whose link comes back gets what waited for it at once (the job covers the links
    // held by other instances within a minute).
    use('hub').onLinkUp((allocationId) => {
      void deps.allocations
        .getWithOwner(allocationId)
        .then(({ clientId }) => watch.resume(clientId, allocationId))
        .catch((err: unknown) => log.warn({ err: String(err), allocationId }, 'equipment resume failed'));
    });
    const relayDeps = {
      equipment,
      pool,
      authenticate: use('accounts').authenticate,
      ...(credentialFailures ? { credentialFailures } : {}),
      timeoutMs: options.equipment?.relayTimeoutMs ?? RELAY_TIMEOUT_MS,
    };
    const access = {
      domain: config.equipmentDeviceDomain,
      scheme: config.equipmentDeviceScheme,
      key: loadOrCreateSecret(config.dataDir, 'equipment-access-key'),
    };
    return {
      services: { equipment },
      routes: (api) => equipmentRoutes(api, { equipment, checks, clock, access, webAccess }),
      jobs: [equipmentMonitorJob({ watch })],
      beforeBodyParser: [
        accessHostMiddleware({ ...relayDeps, domain: access.domain, key: access.key, clock }),
        relayMiddleware(relayDeps),
      ],
    };
  },
});
