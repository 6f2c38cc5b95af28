// A {vpn_host} end for tests: the controller's VpnHost (peers and accounts it is told to add) and
// the VPN server the simulator's tunnels reach (VpnPeerEnd): a WireGuard handshake succeeds only
// with this end's endpoint and public key, a known router key and its preshared key; an SSTP login
// only with a known account. Time comes from the clock it is given.
import nacl from 'tweetnacl';
import type {
  PeerStatus,
  SstpAccount,
  VpnEndpoints,
  VpnHost,
  WireguardPeer,
} from '../../controller/modules/remote-access/index.js';
import type { VpnPeerEnd } from '../routeros-sim/vpn-tunnels.js';

interface PeerState {
  peer: WireguardPeer;
  connectedAt: string | null;
  rxBytes: number;
}

export class FakeVpnHost implements VpnHost, VpnPeerEnd {
  readonly host = 'vpn.test.invalid';
  readonly wireguardPort = 51820;
  readonly sstpPort = 443;
  readonly publicKey: string;
  readonly peers = new Map<string, PeerState>();
  readonly accounts = new Map<
    string,
    { account: SstpAccount; connectedAt: string | null; rxBytes: number }
  >();
  /** Every call, in order, for assertions (secrets left out). */
  readonly calls: string[] = [];
  /** Makes `endpoints()` fail (the VPN end is down). */
  down = false;

  constructor(private readonly now: () => Date = () => new Date()) {
    this.publicKey = Buffer.from(nacl.box.keyPair().publicKey).toString('base64');
  }

  async endpoints(): Promise<VpnEndpoints> {
    if (this.down) throw new Error('VPN end down');
    return {
      host: this.host,
      wireguard: { port: this.wireguardPort, publicKey: this.publicKey },
      sstp: { port: this.sstpPort },
    };
  }
  async addWireguardPeer(peer: WireguardPeer): Promise<void> {
    this.calls.push(`wg add ${peer.publicKey} ${peer.tunnelAddress}`);
    const was = this.peers.get(peer.publicKey);
    this.peers.set(peer.publicKey, {
      peer,
      connectedAt: was?.connectedAt ?? null,
      rxBytes: was?.rxBytes ?? 0,
    });
  }
  async removeWireguardPeer(publicKey: string): Promise<void> {
    this.calls.push(`wg remove ${publicKey}`);
    this.peers.delete(publicKey);
  }
  async addSstpAccount(account: SstpAccount): Promise<void> {
    this.calls.push(`sstp add ${account.username} ${account.tunnelAddress}`);
    const was = this.accounts.get(account.username);
    this.accounts.set(account.username, {
      account,
      connectedAt: was?.connectedAt ?? null,
      rxBytes: was?.rxBytes ?? 0,
    });
  }
  async removeSstpAccount(username: string): Promise<void> {
    this.calls.push(`sstp remove ${username}`);
    this.accounts.delete(username);
  }
  async status(protocol: 'WIREGUARD' | 'SSTP', key: string): Promise<PeerStatus> {
    const s = protocol === 'WIREGUARD' ? this.peers.get(key) : this.accounts.get(key);
    return { protocol, connectedAt: s?.connectedAt ?? null, rxBytes: s?.rxBytes ?? 0 };
  }

  wireguardHandshake(req: Parameters<VpnPeerEnd['wireguardHandshake']>[0]): boolean {
    if (req.endpointHost !== this.host || req.endpointPort !== this.wireguardPort) return false;
    if (req.serverPublicKey !== this.publicKey) return false;
    const s = this.peers.get(req.routerPublicKey);
    if (!s || s.peer.presharedKey !== req.presharedKey) return false;
    if (s.connectedAt === null) s.rxBytes += 148;
    s.connectedAt = this.now().toISOString();
    return true;
  }
  sstpConnect(req: Parameters<VpnPeerEnd['sstpConnect']>[0]): ReturnType<VpnPeerEnd['sstpConnect']> {
    if (req.host !== this.host || req.port !== this.sstpPort) return null;
    const s = this.accounts.get(req.user);
    if (!s || s.account.password !== req.password) return null;
    if (s.connectedAt === null) s.rxBytes += 120;
    s.connectedAt ??= this.now().toISOString();
    return { localAddress: s.account.tunnelAddress, remoteAddress: '10.96.0.1' };
  }
  traffic(protocol: 'WIREGUARD' | 'SSTP', key: string, bytes: number): void {
    const s = protocol === 'WIREGUARD' ? this.peers.get(key) : this.accounts.get(key);
    if (s) s.rxBytes += bytes;
  }
}
