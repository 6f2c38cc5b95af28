// Devices on the router's LAN (access points, cameras) and what the router does for them: their
// DHCP lease and ARP entry, the dst-nat rules of `/ip firewall nat` really forwarding TCP to them,
// and `/tool netwatch` probing them. A device is a real TCP endpoint on loopback that the test
// starts (an HTTP server); the simulator maps its LAN address and ports onto it.
//
// As on a router (RouterOS manual, "NAT" and "Netwatch"):
// - a connection to the router on a port that an enabled `chain=dstnat action=dst-nat` rule matches
//   (protocol tcp, dst-port, src-address when set) goes to `to-addresses`:`to-ports`, the first
//   matching rule in list order winning; with no matching rule the router itself answers on that
//   port, where nothing listens (reset). A rule removed, disabled or changed breaks new connections;
//   those already tracked keep going;
// - a device that is off does not answer: the connection is held unanswered, as a SYN with no reply;
//   its connections already forwarded go silent too (so does a device moved to another address);
// - netwatch probes each enabled entry every `interval`: `type=tcp-conn` (7.4+) opens a TCP
//   connection to `host`:`port`, the other types (and RouterOS 6, which has only ICMP) ask whether
//   the host answers at all; `status` becomes up or down and `since` the time of the change;
// - `type=icmp` (7.4+) sends `packet-count` echoes (default 10) and prints what came back:
//   sent-count, response-count, loss-count, loss-percent and rtt-avg, rtt-min, rtt-max, rtt-jitter
//   (largest minus smallest of the test: "jitter ( = max - min) of round trip time"), rtt-stdev; a host past the WAN answers over the router's Internet
//   link (wan-link.ts). The probe is down when nothing came back, or when the average or the loss
//   passes `thr-avg` (default 100ms) or `thr-loss-percent` (default 85%), as the manual warns for
//   slow links (sim assumption: the other thresholds are not modelled).
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { MenuTable, SimRecord } from './menu-table.js';
import { formatDateTime, parseDuration } from './ros-format.js';
import type { RouterState } from './router-state.js';
import { echoStats, type Echo, type WanLink } from './wan-link.js';

export const LAN_BRIDGE = 'bridge-lan';
export const LAN_NET = '192.168.50';

export interface LanDeviceOptions {
  address: string;
  mac: string;
  hostName?: string;
  /** LAN port → loopback port of the real server behind it. */
  ports: Record<number, number>;
  /** A dynamic DHCP lease (default), a static one, or none (a fixed address on the device). */
  lease?: 'dynamic' | 'static' | 'none';
}

interface LanDevice extends LanDeviceOptions {
  online: boolean;
  /** Connections forwarded to it, as silence(): what stops them when it goes away. */
  forwarded: Set<() => void>;
}

const NETWATCH_TICK_MS = 1000;
/** How long an unanswered connection (device off) is held before the router drops its state. */
const SILENT_HOLD_MS = 30_000;

export class SimLan {
  readonly #devices = new Map<string, LanDevice>();
  readonly #listeners = new Map<number, Server>();
  readonly #sockets = new Set<Socket>();
  readonly #lastProbe = new Map<number, number>();
  readonly #timer: NodeJS.Timeout;
  readonly #onNatChange = () => this.#syncListeners();
  #closed = false;

  constructor(
    private readonly state: RouterState,
    private readonly host: string,
    private readonly wan?: WanLink,
  ) {
    this.#nat.on('change', this.#onNatChange);
    this.#timer = setInterval(() => void this.probeDue(performance.now()), NETWATCH_TICK_MS).unref();
  }

  get #nat(): MenuTable {
    return this.state.table('/ip/firewall/nat');
  }

  /** Puts a device on the LAN bridge (created with its subnet and DHCP server on first use). */
  addDevice(options: LanDeviceOptions): void {
    this.#ensureBridge();
    const device: LanDevice = {
      ...options,
      mac: options.mac.toUpperCase(),
      online: true,
      forwarded: new Set(),
    };
    this.#devices.set(device.mac, device);
    const lease = options.lease ?? 'dynamic';
    if (lease !== 'none') {
      this.state.table('/ip/dhcp-server/lease').insert({
        address: device.address,
        'mac-address': device.mac,
        'client-id': `1:${device.mac.toLowerCase()}`,
        server: 'dhcp-lan',
        status: 'bound',
        'active-address': device.address,
        'active-mac-address': device.mac,
        'host-name': options.hostName ?? '',
        radius: 'false',
        dynamic: lease === 'dynamic' ? 'true' : 'false',
        blocked: 'false',
        disabled: 'false',
      });
    }
    this.#putArp(device);
  }

  /** Switches a device off (its ARP entry goes, it answers nothing) or on again. */
  setOnline(mac: string, online: boolean): void {
    const device = this.#device(mac);
    device.online = online;
    if (online) this.#putArp(device);
    else {
      this.#dropArp(device);
      this.#silence(device);
    }
  }

  /** The device now uses another address (set by hand on it): its ARP entry follows, a static lease stays. */
  moveDevice(mac: string, address: string): void {
    const device = this.#device(mac);
    this.#dropArp(device);
    this.#silence(device);
    const lease = this.state.table('/ip/dhcp-server/lease').findBy('mac-address', device.mac);
    if (lease && lease.props.dynamic === 'true') {
      this.state.table('/ip/dhcp-server/lease').update(lease, { address, 'active-address': address });
    }
    device.address = address;
    if (device.online) this.#putArp(device);
  }

  /** Runs every enabled netwatch entry now, whatever its interval. */
  async probeAll(): Promise<void> {
    await this.probeDue(Number.POSITIVE_INFINITY);
  }

  /** Runs the netwatch entries whose interval has passed at monotonic time `nowMs`. */
  async probeDue(nowMs: number): Promise<void> {
    const table = this.state.menu('/tool/netwatch');
    if (!table || this.#closed) return;
    for (const rec of table.list()) {
      if (rec.props.disabled === 'true') continue;
      const intervalMs = (parseDuration(rec.props.interval ?? '1m') ?? 60) * 1000;
      const last = this.#lastProbe.get(rec.id);
      if (nowMs !== Number.POSITIVE_INFINITY && last !== undefined && nowMs - last < intervalMs) continue;
      this.#lastProbe.set(rec.id, nowMs === Number.POSITIVE_INFINITY ? performance.now() : nowMs);
      const icmp = rec.props.type === 'icmp' && this.state.caps.netwatchIcmp ? this.#icmp(rec) : undefined;
      const up = icmp ? icmp.up : await this.#probe(rec);
      const status = up ? 'up' : 'down';
      if (!table.get(rec.id)) continue;
      if (icmp) table.update(rec, icmp.props);
      if (rec.props.status !== status) {
        table.update(rec, { status, since: formatDateTime(this.state.caps, this.state.identity.now()) });
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#nat.off('change', this.#onNatChange);
    for (const s of this.#sockets) s.destroy();
    await Promise.all([...this.#listeners.values()].map((srv) => new Promise((r) => srv.close(r))));
    this.#listeners.clear();
  }

  // ---- NAT ---------------------------------------------------------------------

  /** dst-port of an enabled dst-nat rule (a single port: ranges and lists are not modelled). */
  #natPort(rec: SimRecord): number | undefined {
    const p = rec.props;
    if (p.disabled === 'true' || p.chain !== 'dstnat' || p.action !== 'dst-nat' || p.protocol !== 'tcp') {
      return undefined;
    }
    const port = Number(p['dst-port']);
    return Number.isInteger(port) && port > 0 && port <= 65535 ? port : undefined;
  }

  #syncListeners(): void {
    if (this.#closed) return;
    const wanted = new Set(this.#nat.list().flatMap((r) => this.#natPort(r) ?? []));
    for (const [port, server] of this.#listeners) {
      if (!wanted.has(port)) {
        server.close();
        this.#listeners.delete(port);
      }
    }
    for (const port of wanted) {
      if (this.#listeners.has(port)) continue;
      const server = createServer((socket) => this.#forward(port, socket));
      // a port taken on this machine by something else cannot be modelled: left without listener
      server.on('error', () => this.#listeners.delete(port));
      server.listen(port, this.host);
      this.#listeners.set(port, server);
    }
  }

  #forward(port: number, socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
    const source = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const rule = this.#nat
      .list()
      .find((r) => this.#natPort(r) === port && matchesAddress(r.props['src-address'], source));
    if (!rule) return void socket.resetAndDestroy();
    const target = rule.props['to-addresses'] ?? '';
    const toPort = Number(rule.props['to-ports'] || port);
    const device = [...this.#devices.values()].find((d) => d.address === target && d.online);
    if (!device) {
      // nobody answers at that address: the client's connection attempt goes unanswered
      socket.pause();
      setTimeout(() => socket.destroy(), SILENT_HOLD_MS).unref();
      return;
    }
    const real = device.ports[toPort];
    if (real === undefined) return void socket.resetAndDestroy();
    const upstream = connect(real, '127.0.0.1');
    // a router forwards packets as they come: no Nagle delay of its own on either side
    socket.setNoDelay(true);
    upstream.setNoDelay(true);
    this.#sockets.add(upstream);
    upstream.on('close', () => this.#sockets.delete(upstream));
    upstream.on('error', () => socket.destroy());
    socket.on('close', () => upstream.destroy());
    socket.pipe(upstream);
    upstream.pipe(socket);
    const silence = () => {
      socket.unpipe(upstream);
      upstream.unpipe(socket);
      socket.pause();
      upstream.destroy();
      setTimeout(() => socket.destroy(), SILENT_HOLD_MS).unref();
    };
    device.forwarded.add(silence);
    socket.on('close', () => device.forwarded.delete(silence));
  }

  // The device is gone from its address: what was forwarded to it gets no answer any more (held
  // like an unanswered connection), not a reset.
  #silence(device: LanDevice): void {
    for (const silence of device.forwarded) silence();
    device.forwarded.clear();
  }

  // ---- netwatch ----------------------------------------------------------------

  /** One ICMP probe: its echoes, the figures netwatch prints, and whether it counts as up. */
  #icmp(rec: SimRecord): { up: boolean; props: Record<string, string> } {
    const count = Math.max(1, Math.min(100, Number(rec.props['packet-count'] ?? '10') || 10));
    const device = [...this.#devices.values()].find((d) => d.address === rec.props.host);
    const echoes: Echo[] = [];
    for (let i = 0; i < count; i++) {
      if (device) echoes.push(device.online ? 300 + i : null);
      else echoes.push(this.wan ? this.wan.echo() : null);
    }
    const st = echoStats(echoes);
    const us = (n: number | undefined) => (n === undefined ? '' : `${Math.floor(n / 1000)}ms${n % 1000}us`);
    const thrAvg = (parseDuration(rec.props['thr-avg'] ?? '100ms') ?? 0.1) * 1e6;
    const thrLoss = Number(rec.props['thr-loss-percent'] ?? '85') || 85;
    const up = st.received > 0 && (st.avg ?? 0) <= thrAvg && st.lossPct <= thrLoss;
    return {
      up,
      props: {
        'sent-count': String(st.sent),
        'response-count': String(st.received),
        'loss-count': String(st.sent - st.received),
        'loss-percent': String(st.lossPct),
        'rtt-avg': us(st.avg),
        'rtt-min': us(st.min),
        'rtt-max': us(st.max),
        'rtt-jitter': us(st.jitter),
        'rtt-stdev': us(st.stdev),
      },
    };
  }

  async #probe(rec: SimRecord): Promise<boolean> {
    const device = [...this.#devices.values()].find((d) => d.address === rec.props.host);
    if (!device?.online) return false;
    if (rec.props.type !== 'tcp-conn') return true;
    const real = device.ports[Number(rec.props.port)];
    if (real === undefined) return false;
    return new Promise<boolean>((resolve) => {
      const probe = connect(real, '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        resolve(true);
      });
      probe.once('error', () => resolve(false));
    });
  }

  // ---- LAN tables --------------------------------------------------------------

  #device(mac: string): LanDevice {
    const device = this.#devices.get(mac.toUpperCase());
    if (!device) throw new Error(`no LAN device ${mac}`);
    return device;
  }

  #ensureBridge(): void {
    if (this.state.table('/interface').findBy('name', LAN_BRIDGE)) return;
    this.state.table('/interface').insert({
      name: LAN_BRIDGE,
      type: 'bridge',
      mtu: 'auto',
      'actual-mtu': '1500',
      running: 'true',
      disabled: 'false',
    });
    this.state.table('/ip/address').insert({
      address: `${LAN_NET}.1/24`,
      network: `${LAN_NET}.0`,
      interface: LAN_BRIDGE,
      'actual-interface': LAN_BRIDGE,
      invalid: 'false',
      dynamic: 'false',
      disabled: 'false',
    });
    this.state.table('/ip/dhcp-server').insert({
      name: 'dhcp-lan',
      interface: LAN_BRIDGE,
      'lease-time': '10m',
      authoritative: 'true',
      invalid: 'false',
      dynamic: 'false',
      disabled: 'false',
    });
  }

  #putArp(device: LanDevice): void {
    this.state.table('/ip/arp').insert({
      address: device.address,
      'mac-address': device.mac,
      interface: LAN_BRIDGE,
      invalid: 'false',
      DHCP: device.lease === 'none' ? 'false' : 'true',
      dynamic: 'true',
      published: 'false',
      complete: 'true',
      disabled: 'false',
    });
  }

  #dropArp(device: LanDevice): void {
    const arp = this.state.table('/ip/arp');
    for (const rec of arp.list()) if (rec.props['mac-address'] === device.mac) arp.delete(rec);
  }
}

/** `src-address` of a rule: empty matches any source; an address, a CIDR, or `!` before either. */
function matchesAddress(rule: string | undefined, source: string): boolean {
  if (!rule) return true;
  const negate = rule.startsWith('!');
  const [net, bits] = (negate ? rule.slice(1) : rule).split('/');
  const toNum = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(bits ?? 32));
  const hit = Math.floor(toNum(source) / size) === Math.floor(toNum(net ?? '') / size);
  return negate ? !hit : hit;
}
