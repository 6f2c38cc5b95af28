// The {vpn_host} end of the routers' tunnels, behind a small interface: the Linux adapter
// (linux-vpn-host.ts) drives wireguard-tools and accel-ppp on the VPN server; tests inject a fake.
// The controller only ever talks to its own VPN end here, never to a router.
import type { TransportProtocol } from './tables.js';

export interface VpnEndpoints {
  /** Public host routers dial ({vpn_host}). */
  host: string;
  wireguard: { port: number; publicKey: string };
  sstp: { port: number };
}

export interface WireguardPeer {
  publicKey: string;
  presharedKey: string;
  /** The router's management address on the tunnel (a /32 is routed to it). */
  tunnelAddress: string;
}

export interface SstpAccount {
  username: string;
  password: string;
  /** The address the server hands the router's PPP link. */
  tunnelAddress: string;
}

/** What the VPN end sees of one router's tunnel. */
export interface PeerStatus {
  protocol: TransportProtocol;
  /** WireGuard: time of the last handshake; SSTP: time the session came up. Null: never. */
  connectedAt: string | null;
  /** Bytes received from the router on this tunnel. */
  rxBytes: number;
}

export interface VpnHost {
  endpoints(): Promise<VpnEndpoints>;
  /** Adds or replaces a WireGuard peer (idempotent by public key). */
  addWireguardPeer(peer: WireguardPeer): Promise<void>;
  removeWireguardPeer(publicKey: string): Promise<void>;
  /** Adds or replaces an SSTP account (idempotent by user name). */
  addSstpAccount(account: SstpAccount): Promise<void>;
  removeSstpAccount(username: string): Promise<void>;
  /** What the VPN end sees of a WireGuard peer (by public key) or an SSTP account (by user name). */
  status(protocol: TransportProtocol, key: string): Promise<PeerStatus>;
}

/** A controller with no VPN end configured: every use says so (503 at the routes). */
export class UnconfiguredVpnHost implements VpnHost {
  #fail(): never {
    throw new Error('no VPN end is configured (TICKETNET_VPN_HOST)');
  }
  endpoints = async (): Promise<VpnEndpoints> => this.#fail();
  addWireguardPeer = async (): Promise<void> => this.#fail();
  removeWireguardPeer = async (): Promise<void> => this.#fail();
  addSstpAccount = async (): Promise<void> => this.#fail();
  removeSstpAccount = async (): Promise<void> => this.#fail();
  status = async (): Promise<PeerStatus> => this.#fail();
}
