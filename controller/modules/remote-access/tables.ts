// The remote-access tables: per router slot its transport state, its channels (each a path with
// its own management address) and key sets, and the management probes asked by operation id.
// Secrets (private keys, preshared keys, passwords, router credentials, the rescue profile) are
// stored sealed by the controller's secret box (seal-contexts.ts), never in clear.

export type TransportProtocol = 'WIREGUARD' | 'SSTP';
export type ChannelRole = 'PRIMARY' | 'FALLBACK';
export type ChannelState =
  | 'ISSUED'
  | 'LOCAL_CONFIGURED'
  | 'DATA_PLANE_CONFIRMED'
  | 'MANAGEMENT_CONFIRMED'
  | 'ACTIVE'
  | 'FAILED'
  | 'REVOKED';
export type TransportReason =
  'DEFAULT' | 'UNCHANGED' | 'ROUTEROS_V6_NO_WIREGUARD' | 'APP_REQUESTED' | 'WIREGUARD_NEVER_CONNECTED';

/** One router slot's transport: which channel serves and why, its router credentials and rescue relay. */
export interface RemoteAccessSlotsTable {
  allocation_id: string;
  client_id: string;
  routeros_version: string;
  active_channel_id: string | null;
  active_reason: TransportReason | null;
  /** Router credentials deposited by the app (sealed JSON), null until then. */
  credentials_sealed: string | null;
  credentials_updated_at: string | null;
  /** PENDING (the agent has not taken them yet), APPLIED or REFUSED; null when none deposited. */
  credentials_state: 'PENDING' | 'APPLIED' | 'REFUSED' | null;
  /** The agent's fault code when REFUSED (e.g. ROUTER_AUTH_FAILED). */
  credentials_fault: string | null;
  credentials_applied_at: string | null;
  /** Rescue relay: UNAVAILABLE_ON_MODEL, ENABLING, READY, FAILED; null before any attempt. */
  rescue_state: string | null;
  rescue_profile_sealed: string | null;
  rescue_updated_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A provisioned key set: kept when its channel retires, so a later switch needs no new keys. */
export interface RemoteAccessProfilesTable {
  id: string;
  client_id: string;
  allocation_id: string;
  protocol: TransportProtocol;
  /** WireGuard: the router's public key (base64); SSTP: null. */
  public_key: string | null;
  /** WireGuard: the router's private key and the preshared key, sealed; SSTP: null. */
  private_key_sealed: string | null;
  preshared_key_sealed: string | null;
  /** SSTP: the account name and its password, sealed; WireGuard: null. */
  username: string | null;
  password_sealed: string | null;
  created_at: string;
}

export interface RemoteAccessChannelsTable {
  id: string;
  client_id: string;
  allocation_id: string;
  profile_id: string;
  role: ChannelRole;
  protocol: TransportProtocol;
  state: ChannelState;
  /** Unique over all channels: the router's management address is derived from it. */
  address_index: number;
  tunnel_address: string;
  server_address: string;
  endpoint_host: string;
  endpoint_port: number;
  /** Name of the router's interface for this channel. */
  interface_name: string;
  last_data_plane_confirmed_at: string | null;
  last_management_probe_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A management probe, stored under the caller's operation id so a retry answers the same attempt. */
export interface RemoteAccessAttemptsTable {
  client_id: string;
  operation_id: string;
  allocation_id: string;
  /** SHA-256 of the canonical request: the same id with another body is refused. */
  request_sha256: string;
  candidate_channel_id: string;
  previous_channel_id: string | null;
  requested_transport: TransportProtocol;
  state: 'PENDING' | 'CONFIRMED' | 'FAILED';
  reachable: number;
  data_plane_confirmed: number;
  observed_transport: TransportProtocol | null;
  retire_previous_allowed: number;
  /** Why the probe refused retirement (a code from docs/api/remote-access.md), null when allowed. */
  refusal: string | null;
  previous_retired: number;
  created_at: string;
  updated_at: string;
}

export interface RemoteAccessTables {
  remote_access_slots: RemoteAccessSlotsTable;
  remote_access_profiles: RemoteAccessProfilesTable;
  remote_access_channels: RemoteAccessChannelsTable;
  remote_access_attempts: RemoteAccessAttemptsTable;
}
