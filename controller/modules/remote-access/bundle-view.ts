// The remote-access bundle as `resolve` answers it (docs/api/remote-access.md): what exists
// (`protocols`, one entry per key profile, never a channel id), what serves (`active_transport`),
// the channels a probe may name, and the rescue relay on the slot, never as a channel.
import type { AllocationView, Enrolment } from '../allocations/index.js';
import type { LegacyTransport } from './legacy-transports.js';
import type { VpnEndpoints } from './vpn-host.js';
import type {
  RemoteAccessChannelsTable,
  RemoteAccessProfilesTable,
  RemoteAccessSlotsTable,
  TransportProtocol,
} from './tables.js';

export interface ChannelView {
  channel_id: string;
  role: RemoteAccessChannelsTable['role'];
  protocol: TransportProtocol;
  state: RemoteAccessChannelsTable['state'];
  profile_id: string;
  endpoint: { host: string; port: number };
  tunnel_address: string;
  last_data_plane_confirmed_at: string | null;
  last_management_probe_at: string | null;
}

export function channelView(c: RemoteAccessChannelsTable): ChannelView {
  return {
    channel_id: c.id,
    role: c.role,
    protocol: c.protocol,
    state: c.state,
    profile_id: c.profile_id,
    endpoint: { host: c.endpoint_host, port: Number(c.endpoint_port) },
    tunnel_address: c.tunnel_address,
    last_data_plane_confirmed_at: c.last_data_plane_confirmed_at,
    last_management_probe_at: c.last_management_probe_at,
  };
}

export function bundleView(input: {
  allocation: AllocationView;
  enrolment: Enrolment | null;
  slot: RemoteAccessSlotsTable;
  channels: RemoteAccessChannelsTable[];
  profiles: RemoteAccessProfilesTable[];
  endpoints: VpnEndpoints;
  /** The legacy hosts while the client's migration runs (legacy-transports.ts), else []. */
  rescueTransports: LegacyTransport[];
}) {
  const { allocation, slot, endpoints } = input;
  const live = input.channels.filter((c) => c.state !== 'REVOKED');
  const active = live.find((c) => c.id === slot.active_channel_id) ?? null;
  const liveProfiles = new Set(live.map((c) => c.profile_id));
  const warnings: string[] = [];
  if (input.enrolment) warnings.push('AGENT_NOT_ENROLLED');
  if (allocation.status === 'ENROLLED' && allocation.link_state !== 'CONNECTED')
    warnings.push('AGENT_NOT_CONNECTED');
  if (active && live.some((c) => c.id !== active.id)) warnings.push('PREVIOUS_TRANSPORT_KEPT_UNTIL_PROBE');
  if (slot.rescue_state === 'UNAVAILABLE_ON_MODEL') warnings.push('RESCUE_UNAVAILABLE_ON_MODEL');
  return {
    allocation_id: allocation.id,
    status: !active ? 'NO_TRANSPORT' : active.state === 'ACTIVE' ? 'ACTIVE' : 'PROVISIONING',
    protocols: input.profiles
      .filter((p) => liveProfiles.has(p.id))
      .map((p) => ({
        protocol: p.protocol,
        profile_id: p.id,
        endpoint:
          p.protocol === 'WIREGUARD'
            ? { host: endpoints.host, port: endpoints.wireguard.port }
            : { host: endpoints.host, port: endpoints.sstp.port },
        ...(p.protocol === 'WIREGUARD'
          ? { public_key: p.public_key, server_public_key: endpoints.wireguard.publicKey }
          : { username: p.username }),
      })),
    active_transport: active?.protocol ?? null,
    active_transport_reason: active ? slot.active_reason : null,
    tunnel: active
      ? {
          protocol: active.protocol,
          interface: active.interface_name,
          router_address: active.tunnel_address,
          server_address: active.server_address,
          endpoint: { host: active.endpoint_host, port: Number(active.endpoint_port) },
        }
      : null,
    redirection: active ? { host: endpoints.host, target_address: active.tunnel_address } : null,
    warnings,
    transport_channels: live.map(channelView),
    // Legacy entries only: never one of this service's channels, never a RESCUE channel.
    rescue_transports: input.rescueTransports,
    rescue_relay: slot.rescue_state ? { state: slot.rescue_state, updated_at: slot.rescue_updated_at } : null,
    router: { routeros_version: slot.routeros_version, serial: allocation.router.serial },
    enrolment: input.enrolment,
  };
}

export type Bundle = ReturnType<typeof bundleView>;
