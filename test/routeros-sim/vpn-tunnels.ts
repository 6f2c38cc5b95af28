// The router's remote-access tunnels: `/interface/sstp-client` (RouterOS 6 and 7) with its
// `monitor`, the WireGuard interface's key pair (RouterOS derives `public-key` from
// `private-key`, and makes a private key when none is given), and whether each tunnel is up.
// A tunnel comes up when the VPN end the test gives (`VpnPeerEnd`) accepts it: WireGuard when a
// handshake with the configured endpoint, keys and preshared key succeeds (not while the
// `blockWireguardUdp` fault holds), SSTP when the server takes the user and password. Each
// tunnel interface also shows in `/interface` with its traffic counters, as on a router.
import nacl from 'tweetnacl';
import { RosTrap, noSuchItem, type CommandContext } from './command-types.js';
import type { FaultController } from './faults.js';
import type { MenuTable, SimRecord } from './menu-table.js';
import type { RouterState } from './router-state.js';
import { formatDuration } from './ros-format.js';
import { genericVerb } from './menu-commands.js';

/** The VPN server as the router's tunnels reach it (tests pass their fake {vpn_host} end). */
export interface VpnPeerEnd {
  wireguardHandshake(req: {
    endpointHost: string;
    endpointPort: number;
    serverPublicKey: string;
    routerPublicKey: string;
    presharedKey: string;
  }): boolean;
  /** The PPP addresses the server hands the router (its own, the server's), or null when refused. */
  sstpConnect(req: {
    host: string;
    port: number;
    user: string;
    password: string;
  }): { localAddress: string; remoteAddress: string } | null;
  /** Bytes the router's tunnel carried to the server (a ping through it, for instance). */
  traffic(protocol: 'WIREGUARD' | 'SSTP', key: string, bytes: number): void;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const HANDSHAKE_BYTES = { rx: 92, tx: 148 };
/** WireGuard drops a session 180 s after its last handshake (REJECT_AFTER_TIME). */
const WIREGUARD_SESSION_MS = 180_000;

export class SimTunnels {
  /** When each SSTP client came up (by record id). */
  private readonly sstpUp = new Map<number, number>();
  /** Time of each WireGuard peer's last successful handshake (by record id). */
  private readonly handshakes = new Map<number, number>();
  /** `/interface` row of each tunnel entry, keyed `wg:<id>` or `sstp-out:<id>`. */
  private readonly rows = new Map<string, SimRecord>();

  constructor(
    private readonly state: RouterState,
    private readonly faults: FaultController,
    private readonly peerEnd: VpnPeerEnd | undefined,
  ) {
    const wg = state.menu('/interface/wireguard');
    wg?.on('change', (kind: string, rec: SimRecord) => {
      if (kind !== 'remove') this.deriveKeys(rec);
      this.mirror(wg, rec, kind, 'wg');
      this.refresh();
    });
    state.menu('/interface/wireguard/peers')?.on('change', () => this.refresh());
    const sstp = state.table('/interface/sstp-client');
    sstp.on('change', (kind: string, rec: SimRecord) => {
      this.mirror(sstp, rec, kind, 'sstp-out');
      // A changed or removed client reconnects (or goes): its PPP link starts over.
      if (this.sstpUp.delete(rec.id)) this.pppDown(rec);
      this.refresh();
    });
  }

  /** RouterOS: the public key follows the private key; an interface added without one gets one. */
  private deriveKeys(rec: SimRecord): void {
    let secret = rec.props['private-key'] ? Buffer.from(rec.props['private-key'], 'base64') : undefined;
    if (!secret || secret.length !== 32) {
      secret = Buffer.from(nacl.randomBytes(32));
      rec.props['private-key'] = b64(secret);
    }
    rec.props['public-key'] = b64(nacl.box.keyPair.fromSecretKey(secret).publicKey);
  }

  /** Keeps a tunnel's row in `/interface` (name, type, running, counters). */
  private mirror(menu: MenuTable, rec: SimRecord, kind: string, type: string): void {
    const all = this.state.table('/interface');
    const name = rec.props.name ?? '';
    const key = `${type}:${rec.id}`;
    const row = this.rows.get(key);
    if (kind === 'remove') {
      if (row) all.delete(row);
      this.rows.delete(key);
      return;
    }
    const props = {
      name,
      type,
      running: rec.props.running ?? 'false',
      disabled: rec.props.disabled ?? 'false',
    };
    if (row) all.patch(row, props);
    else this.rows.set(key, all.insert({ ...props, 'rx-byte': '0', 'tx-byte': '0' }));
    void menu;
  }

  /** Brings each tunnel up or down from its configuration and the VPN end's answer. */
  refresh(): void {
    const wg = this.state.menu('/interface/wireguard');
    const peers = this.state.menu('/interface/wireguard/peers');
    for (const iface of wg?.list() ?? []) {
      let up = false;
      for (const peer of peers?.list().filter((p) => p.props.interface === iface.props.name) ?? []) {
        const ok =
          iface.props.disabled !== 'true' &&
          peer.props.disabled !== 'true' &&
          !this.faults.active.blockWireguardUdp &&
          Boolean(peer.props['endpoint-address']) &&
          (this.peerEnd?.wireguardHandshake({
            endpointHost: peer.props['endpoint-address'] ?? '',
            endpointPort: Number(peer.props['endpoint-port'] ?? 0),
            serverPublicKey: peer.props['public-key'] ?? '',
            routerPublicKey: iface.props['public-key'] ?? '',
            presharedKey: peer.props['preshared-key'] ?? '',
          }) ??
            false);
        const now = this.state.identity.now().getTime();
        if (ok) this.handshakes.set(peer.id, now);
        const at = this.handshakes.get(peer.id);
        // RouterOS prints the time since the last handshake, which keeps growing when none succeeds.
        if (at !== undefined)
          peer.props['last-handshake'] = formatDuration(Math.max(1, Math.floor((now - at) / 1000)));
        else delete peer.props['last-handshake'];
        if (ok) {
          up = true;
          peer.props['current-endpoint-address'] = peer.props['endpoint-address'] ?? '';
          peer.props['current-endpoint-port'] = peer.props['endpoint-port'] ?? '0';
          if (peer.props.rx === '0')
            Object.assign(peer.props, { rx: String(HANDSHAKE_BYTES.rx), tx: String(HANDSHAKE_BYTES.tx) });
        }
      }
      // A WireGuard interface runs once enabled, handshake or not (RouterOS shows R on it).
      iface.props.running = iface.props.disabled === 'true' ? 'false' : 'true';
      void up;
    }
    const sstp = this.state.table('/interface/sstp-client');
    for (const client of sstp.list()) {
      const link =
        client.props.disabled === 'true'
          ? null
          : (this.peerEnd?.sstpConnect({
              host: client.props['connect-to'] ?? '',
              port: Number(client.props.port ?? 443),
              user: client.props.user ?? '',
              password: client.props.password ?? '',
            }) ?? null);
      client.props.running = link ? 'true' : 'false';
      if (link && !this.sstpUp.has(client.id)) {
        this.sstpUp.set(client.id, this.state.identity.now().getTime());
        this.pppUp(client, link);
      }
      if (!link && this.sstpUp.has(client.id)) {
        this.sstpUp.delete(client.id);
        this.pppDown(client);
      }
    }
    for (const [key, row] of this.rows) {
      const [type, id] = key.split(':');
      const source = (type === 'wg' ? wg : sstp)?.get(Number(id));
      if (source) row.props.running = source.props.running ?? 'false';
    }
  }

  /**
   * Whether a ping from `src` to `dst` is answered: only through a tunnel that holds `src` and is
   * up (WireGuard: a handshake and `dst` inside the peer's allowed-address; SSTP: connected).
   * Undefined when `src` is not a tunnel's address (ordinary ping rules apply).
   */
  pingThrough(dst: string, src: string, size: number): boolean | undefined {
    this.refresh();
    const address = this.state
      .table('/ip/address')
      .list()
      .find((a) => (a.props.address ?? '').split('/')[0] === src);
    if (!address) return undefined;
    const ifname = address.props.interface ?? '';
    const wg = this.state
      .menu('/interface/wireguard')
      ?.list()
      .find((r) => r.props.name === ifname);
    if (wg) {
      const peer = this.state
        .menu('/interface/wireguard/peers')
        ?.list()
        .find(
          (p) =>
            p.props.interface === ifname &&
            !this.faults.active.blockWireguardUdp &&
            this.state.identity.now().getTime() - (this.handshakes.get(p.id) ?? -Infinity) <
              WIREGUARD_SESSION_MS &&
            inBlock(dst, p.props['allowed-address'] ?? ''),
        );
      if (!peer) return false;
      bump(peer.props, 'rx', 'tx', size);
      this.count(ifname, size);
      this.peerEnd?.traffic('WIREGUARD', wg.props['public-key'] ?? '', size);
      return true;
    }
    const sstp = this.state
      .table('/interface/sstp-client')
      .list()
      .find((r) => r.props.name === ifname);
    if (sstp) {
      if (sstp.props.running !== 'true') return false;
      this.count(ifname, size);
      this.peerEnd?.traffic('SSTP', sstp.props.user ?? '', size);
      return true;
    }
    return undefined;
  }

  /** PPP came up: the router holds the address the server gave, as a dynamic entry; LCP/IPCP bytes counted. */
  private pppUp(client: SimRecord, link: { localAddress: string; remoteAddress: string }): void {
    const name = client.props.name ?? '';
    this.pppDown(client);
    this.state.table('/ip/address').insert({
      address: `${link.localAddress}/32`,
      network: link.remoteAddress,
      interface: name,
      'actual-interface': name,
      invalid: 'false',
      dynamic: 'true',
      disabled: 'false',
    });
    for (const row of this.rows.values())
      if (row.props.name === name) bump(row.props, 'rx-byte', 'tx-byte', 120);
  }

  private pppDown(client: SimRecord): void {
    const addresses = this.state.table('/ip/address');
    for (const a of addresses.list())
      if (a.props.interface === client.props.name && a.props.dynamic === 'true') addresses.delete(a);
  }

  private count(ifname: string, size: number): void {
    for (const row of this.rows.values())
      if (row.props.name === ifname) bump(row.props, 'rx-byte', 'tx-byte', size);
  }

  /** `/interface/sstp-client/monitor numbers=<name> once`: status and uptime of a client. */
  monitor(table: MenuTable, ctx: CommandContext): void {
    const ref = ctx.req.attrs.get('numbers') ?? ctx.req.attrs.get('.id') ?? '';
    if (ref === '') throw new RosTrap('missing value(s) of argument(s) numbers');
    const rec = table.resolve(ref);
    if (!rec) throw noSuchItem();
    this.refresh();
    const since = this.sstpUp.get(rec.id);
    if (since === undefined) {
      ctx.re({ status: rec.props.disabled === 'true' ? 'disabled' : 'connecting...' });
      return;
    }
    const seconds = Math.max(0, Math.floor((this.state.identity.now().getTime() - since) / 1000));
    ctx.re({
      status: 'connected',
      uptime: `${seconds}s`,
      encoding: 'AES256-CBC/SHA1',
      mtu: '1500',
      mru: '1500',
    });
  }
}

function bump(props: Record<string, string>, rx: string, tx: string, size: number): void {
  props[rx] = String(Number(props[rx] ?? 0) + size);
  props[tx] = String(Number(props[tx] ?? 0) + size);
}

/** True when IPv4 `addr` is inside one of the comma-separated `a.b.c.d/n` blocks. */
function inBlock(addr: string, blocks: string): boolean {
  const n = (ip: string) => ip.split('.').reduce((v, o) => v * 256 + Number(o), 0);
  return blocks.split(',').some((block) => {
    const [base, bits = '32'] = block.trim().split('/');
    if (!base) return false;
    const size = 2 ** (32 - Number(bits));
    return Math.floor(n(addr) / size) === Math.floor(n(base) / size);
  });
}

/** `/interface/sstp-client` verbs beside the generic ones. */
export const SSTP_CLIENT_VERBS = {
  monitor: (table: MenuTable, ctx: CommandContext) => ctx.sim.tunnels.monitor(table, ctx),
  print: (table: MenuTable, ctx: CommandContext) => printRefreshed(table, ctx),
};

/** A print of a tunnel menu shows the tunnels as they are now. */
export async function printRefreshed(table: MenuTable, ctx: CommandContext): Promise<void> {
  ctx.sim.tunnels.refresh();
  await genericVerb(table, 'print')!(ctx);
}
