// The closed catalogue: one handler per command name of the protocol's COMMANDS. The mapped type
// makes a command added to the protocol without a handler here a compile error.
import { COMMANDS, usersToColumns } from '../../protocol/index.js';
import type { CommandName, CommandParams, MessageBody } from '../../protocol/index.js';
import type { AgentLogger } from '../logger.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import {
  countHotspotUsers,
  listHotspotUserNames,
  tallyHotspotUsers,
} from '../routeros/hotspot-user-inventory.js';
import {
  exportHotspotUsers,
  listHotspotProfiles,
  ping,
  readFacts,
  saveBackup,
} from '../routeros/router-tasks.js';
import { restoreHotspotProfiles, restoreHotspotUsers } from './hotspot-restore.js';
import { removeHotspotUsers } from './hotspot-users-remove.js';
import { exportResellers } from './resellers-export.js';
import { exportSales } from './sales-export.js';
import { readRadiusStatus } from './radius-status.js';
import { applyScript } from './script-apply.js';
import { probeTransport } from './remote-access-probe.js';
import { enableRescue, readRescue } from './remote-access-rescue.js';
import { applySstp, applyWireguard, removeTransport } from './remote-access-transport.js';
import { setRouterLogin } from './router-login-set.js';
import type { RouterLoginStore } from '../state/router-login-store.js';
import { pinEquipment, unpinEquipment } from './equipment-pin.js';
import { readEquipmentStatus } from './equipment-status.js';
import { scanLan } from './lan-scan.js';
import { readRouterServices } from './router-services.js';
import { applyBandwidth, readActiveUsage } from './bandwidth-apply.js';
import { removeHotspotActive } from './hotspot-active-remove.js';
import { sendDisconnect } from './radius-disconnect.js';
import type { CoaForwarder } from '../radius-relay/coa-forwarder.js';
import { BandwidthWatch } from './bandwidth-watch.js';

/** What a handler gets: the router, checked params, and a signal that fires at the deadline. */
export interface CommandContext<N extends CommandName> {
  router: RouterConnection;
  params: CommandParams<N>;
  command: MessageBody<'command'>;
  signal: AbortSignal;
  /** Router FTP port, for RouterOS 6 file transfers. */
  ftpPort?: number | undefined;
}

/** Runs one command; resolves with `result.output`, rejects with a RouterError (or anything, as AGENT_ERROR). */
export type CommandHandler<N extends CommandName> = (context: CommandContext<N>) => Promise<unknown>;

export type CommandCatalogue = { readonly [N in CommandName]: CommandHandler<N> };

/**
 * File stem of `backup.save` when the controller names none. One rolling name, so repeated
 * backups replace each other on the router's small flash instead of filling it.
 */
export const DEFAULT_BACKUP_NAME = 'ticketnet';

/**
 * What some handlers need besides the router: the relay's path to `/radius incoming`, once started,
 * and the store of the router login the controller hands over (absent: such a command is refused).
 */
export interface CatalogueDeps {
  coa?: () => CoaForwarder | undefined;
  loginStore?: RouterLoginStore;
}

/**
 * The handlers that drive a RouterOS router; `logger` hears what a handler cannot report in its
 * result; `bandwidth` is what the agent knows of the router's bandwidth objects between passes.
 */
export const routerCatalogue = (
  logger: AgentLogger,
  deps: CatalogueDeps = {},
  bandwidth = new BandwidthWatch(),
): CommandCatalogue => ({
  'router.facts': ({ router, signal }) => readFacts(router, { signal }),
  'router.ping': ({ router, signal }) => ping(router, { signal }),
  'hotspot.users.export': ({ router, params, signal }) =>
    exportHotspotUsers(router, { includeProfiles: params.include_profiles ?? false, signal }),
  'hotspot.users.names': ({ router, signal }) => listHotspotUserNames(router, { signal }),
  'hotspot.users.count': ({ router, signal }) => countHotspotUsers(router, { signal }),
  'hotspot.users.remove': ({ router, params, signal }) =>
    removeHotspotUsers(router, { names: params.names, signal }),
  'hotspot.profiles.restore': ({ router, params, signal }) =>
    restoreHotspotProfiles(router, { profiles: params.profiles, signal }),
  'hotspot.users.restore': ({ router, params, signal }) =>
    restoreHotspotUsers(router, { users: params.users, signal }),
  'backup.save': ({ router, params, signal, ftpPort }) =>
    saveBackup(router, {
      name: params.name ?? DEFAULT_BACKUP_NAME,
      signal,
      ...(ftpPort !== undefined ? { ftpPort } : {}),
    }),
  'hotspot.users.columns': async ({ router, params, signal }) => {
    const out = await exportHotspotUsers(router, {
      includeProfiles: params.include_profiles ?? false,
      signal,
    });
    return { ...out, users: usersToColumns(out.users) };
  },
  'hotspot.users.tally': ({ router, signal }) => tallyHotspotUsers(router, { signal }),
  'resellers.export': ({ router, signal }) => exportResellers(router, { signal }),
  'sales.export': ({ router, params, signal }) =>
    exportSales(router, { signal, cursor: params.cursor, limit: params.limit }),
  'router.script.apply': ({ router, params, signal }) =>
    applyScript(router, { name: params.name, source: params.source, signal, logger }),
  'radius.status': ({ router, signal }) => readRadiusStatus(router, { signal }),
  // --- ticket shop ---
  'hotspot.profiles.list': async ({ router, signal }) => ({
    profiles: await listHotspotProfiles(router, { signal }),
  }),
  // ---- remote access ----
  'vpn.wireguard.apply': ({ router, params, signal }) => applyWireguard(router, params, { signal }),
  'vpn.sstp.apply': ({ router, params, signal }) => applySstp(router, params, { signal }),
  'vpn.probe': ({ router, params, signal }) => probeTransport(router, params, { signal }),
  'vpn.transport.remove': ({ router, params, signal }) => removeTransport(router, params, { signal }),
  'vpn.rescue.enable': ({ router, params, signal }) => enableRescue(router, params, { signal }),
  'vpn.rescue.read': ({ router, params, signal }) => readRescue(router, params, { signal }),
  'router.login.set': ({ router, params, signal }) =>
    setRouterLogin(router, params, { store: deps.loginStore, signal }),
  // client equipment
  'lan.scan': ({ router, signal }) => scanLan(router, { signal }),
  'equipment.pin': ({ router, params, signal }) => pinEquipment(router, params, { signal }),
  'equipment.status': ({ router, params, signal }) => readEquipmentStatus(router, params, { signal }),
  'equipment.unpin': ({ router, params, signal }) => unpinEquipment(router, params.device_id, { signal }),
  'router.services': ({ router, signal }) => readRouterServices(router, { signal }),
  'hotspot.active.usage': ({ router, signal }) => readActiveUsage(router, { signal }),
  'bandwidth.apply': ({ router, params, signal }) =>
    applyBandwidth(router, params, { signal, watch: bandwidth }),
  // network-quality kick
  'radius.disconnect': ({ params, command, signal }) =>
    sendDisconnect(deps.coa?.(), { packet: params.packet, id: command.id, signal }),
  'hotspot.active.remove': ({ router, params, signal }) =>
    removeHotspotActive(router, { user: params.user, address: params.address, signal }),
  'bandwidth.digest': ({ router, signal }) => bandwidth.digest(router, { signal }),
});

/** Command names this build executes, announced in hello. */
export const CATALOGUE_NAMES: readonly CommandName[] = Object.freeze(Object.keys(COMMANDS) as CommandName[]);
