// The remote-access module's public surface.
export { remoteAccessModule } from './module.js';
export { RemoteAccessService } from './service.js';
export type { RemoteAccessTables } from './tables.js';
export type { ProbeOptions } from './probe-service.js';
export type { PeerStatus, SstpAccount, VpnEndpoints, VpnHost, WireguardPeer } from './vpn-host.js';
