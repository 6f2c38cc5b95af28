// Remote-access transport: resolve (the bundle; the allocation found or made by router serial),
// the router credentials deposit, and the reads. Management probes are in probe-service.ts.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { AllocationsService, AllocationView, Enrolment } from '../allocations/index.js';
import type { MigrationService } from '../migration/index.js';
import { legacyTransports, type LegacyHost } from './legacy-transports.js';
import { bundleView, type Bundle } from './bundle-view.js';
import { provisionChannel } from './channel-provisioning.js';
import * as q from './queries.js';
import type { ResolveBody } from './schemas.js';
import type { SecretBox } from '../../core/secret-box.js';
import { emptySlot } from './empty-slot.js';
import { chooseTransport, routerOsMajor } from './transport-choice.js';
import type { RemoteAccessChannelsTable, RemoteAccessSlotsTable } from './tables.js';
import type { VpnEndpoints, VpnHost } from './vpn-host.js';

export interface RemoteAccessDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  allocations: AllocationsService;
  vpnHost: VpnHost;
  box: SecretBox;
  /** Whether the client's migration runs (the legacy hosts are listed only then). */
  migration: Pick<MigrationService, 'inProgressFor'>;
  legacyHosts: readonly LegacyHost[];
}

export class RemoteAccessService {
  constructor(private readonly deps: RemoteAccessDeps) {}

  async resolve(clientId: string, body: ResolveBody): Promise<Bundle> {
    const { db, clock } = this.deps;
    const major = routerOsMajor(body.routeros_version)!;
    const { allocation, enrolment } = await this.#slotOf(clientId, body);
    const target = { clientId, allocationId: allocation.id };
    const endpoints = await this.endpoints();
    const now = iso(clock.now());
    let slot = await q.findSlot(db, clientId, allocation.id);
    if (!slot) {
      await q.upsertSlot(db, emptySlot(clientId, allocation.id, body.routeros_version, now));
      slot = (await q.findSlot(db, clientId, allocation.id))!;
    }
    const channels = await q.listChannels(db, clientId, allocation.id);
    const live = channels.filter((c) => c.state !== 'REVOKED' && c.state !== 'FAILED');
    const choice = chooseTransport({
      major,
      requested: body.protocol,
      activeChannelId: slot.active_channel_id,
      channels: live.map((c) => ({
        id: c.id,
        protocol: c.protocol,
        state: c.state,
        everConnected: c.last_data_plane_confirmed_at !== null,
      })),
    });
    const set: Partial<RemoteAccessSlotsTable> = { routeros_version: body.routeros_version, updated_at: now };
    if (choice.kind === 'create') {
      const made = await provisionChannel(this.deps, target, choice.protocol, choice.role, endpoints);
      Object.assign(set, { active_channel_id: made.id, active_reason: choice.reason });
    } else if (choice.kind === 'switch') {
      Object.assign(set, { active_channel_id: choice.activeChannelId, active_reason: choice.reason });
    } else if (slot.active_channel_id === null && live.length > 0) {
      // The serving channel failed or was revoked: the newest live one serves, reason kept.
      Object.assign(set, { active_channel_id: live.at(-1)!.id, active_reason: 'UNCHANGED' });
    } else if (slot.active_reason !== null) {
      set.active_reason = 'UNCHANGED';
    }
    await q.updateSlot(db, clientId, allocation.id, set);
    // Nothing made: the rows read above, with the update applied, are the bundle's.
    const known = choice.kind === 'create' ? undefined : { slot: { ...slot, ...set }, channels };
    return this.#bundle(clientId, allocation, enrolment, endpoints, known);
  }

  async endpoints(): Promise<VpnEndpoints> {
    try {
      return await this.deps.vpnHost.endpoints();
    } catch (err) {
      this.deps.logger.error({ err: (err as Error).message }, 'the VPN end did not answer');
      throw new AppError('VPN_HOST_UNAVAILABLE', 'The VPN end is not available; retry later');
    }
  }

  async #bundle(
    clientId: string,
    allocation: AllocationView,
    enrolment: Enrolment | null,
    endpoints: VpnEndpoints,
    known?: { slot: RemoteAccessSlotsTable; channels: RemoteAccessChannelsTable[] },
  ): Promise<Bundle> {
    const { db } = this.deps;
    const { legacyHosts, migration } = this.deps;
    const [slot, channels, profiles, migrating] = await Promise.all([
      known?.slot ?? q.findSlot(db, clientId, allocation.id),
      known?.channels ?? q.listChannels(db, clientId, allocation.id),
      q.listProfiles(db, clientId, allocation.id),
      legacyHosts.length > 0 ? migration.inProgressFor(clientId) : false,
    ]);
    const rescueTransports = legacyTransports(legacyHosts, migrating);
    return bundleView({
      allocation,
      enrolment,
      slot: slot!,
      channels,
      profiles,
      endpoints,
      rescueTransports,
    });
  }

  async #slotOf(
    clientId: string,
    body: ResolveBody,
  ): Promise<{ allocation: AllocationView; enrolment: Enrolment | null }> {
    const { allocations } = this.deps;
    let found: { allocation: AllocationView; enrolment: Enrolment | null };
    if (body.allocation_id) {
      found = await allocations.enrolmentOf(clientId, body.allocation_id);
    } else if (body.router_serial) {
      found = await allocations.slotForRouter(clientId, {
        serial: body.router_serial,
        identity: body.router_identity,
        model: body.router_model,
      });
    } else {
      throw new AppError(
        'ROUTER_SERIAL_REQUIRED',
        'router_serial is required when allocation_id is not given',
      );
    }
    // A revoked slot cannot carry a transport: its agent is refused for good.
    if (found.allocation.status === 'REVOKED')
      throw new AppError('ALLOCATION_NOT_FOUND', 'No allocation with this id');
    return found;
  }
}
