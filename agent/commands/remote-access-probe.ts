// `vpn.probe`: the router's proof of a transport. Read only: the interface and its
// state (WireGuard: the peer's last handshake; SSTP: the client's monitor), its traffic counters,
// whether the router holds its management address there, and pings to the server from that
// address, so an answer can only come back through the candidate tunnel.
import type { CommandOutput, CommandParams } from '../../protocol/index.js';
import { readCapabilities } from '../routeros/read-facts.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsBoolean, parseRouterOsDuration, parseRouterOsInteger } from '../routeros/ros-values.js';

type Output = CommandOutput<'vpn.probe'>;
type Call = { signal?: AbortSignal };

const ABSENT: Output = {
  present: false,
  running: false,
  connected_seconds_ago: null,
  rx_bytes: 0,
  tx_bytes: 0,
  address_present: false,
  ping_sent: 0,
  ping_received: 0,
};

const PINGS = 3;

export async function probeTransport(
  router: RouterConnection,
  p: CommandParams<'vpn.probe'>,
  call: Call,
): Promise<Output> {
  const caps = await readCapabilities(router, call);
  if (p.protocol === 'WIREGUARD' && !caps?.wireguard) return ABSENT;
  const menu = p.protocol === 'WIREGUARD' ? '/interface/wireguard' : '/interface/sstp-client';
  const [entry] = await router.print(menu, { ...call, where: { name: p.interface } });
  if (!entry) return ABSENT;
  const running = parseRouterOsBoolean(entry.running) ?? false;
  const link =
    p.protocol === 'WIREGUARD'
      ? await wireguardLink(router, p.interface, call)
      : await sstpLink(router, p.interface, call);
  const addresses = await router.print('/ip/address', { ...call, where: { interface: p.interface } });
  const addressPresent = addresses.some((a) => (a.address ?? '').split('/')[0] === p.router_address);
  const ping = addressPresent
    ? await pingFrom(router, p.server_address, p.router_address, call)
    : { sent: 0, received: 0 };
  return {
    present: true,
    running,
    ...link,
    address_present: addressPresent,
    ping_sent: ping.sent,
    ping_received: ping.received,
  };
}

async function wireguardLink(router: RouterConnection, iface: string, call: Call) {
  const peers = await router.print('/interface/wireguard/peers', { ...call, where: { interface: iface } });
  let last: number | null = null;
  let rx = 0;
  let tx = 0;
  for (const peer of peers) {
    // `last-handshake` is printed as the time since it (absent: never).
    const ago = peer['last-handshake'] ? parseRouterOsDuration(peer['last-handshake']) : undefined;
    if (ago !== undefined && (last === null || ago < last)) last = Math.floor(ago);
    rx += parseRouterOsInteger(peer.rx) ?? 0;
    tx += parseRouterOsInteger(peer.tx) ?? 0;
  }
  return { connected_seconds_ago: last, rx_bytes: rx, tx_bytes: tx };
}

async function sstpLink(router: RouterConnection, iface: string, call: Call) {
  const [status] = await router.write('/interface/sstp-client/monitor', { numbers: iface, once: '' }, call);
  const connected = status?.status === 'connected';
  const uptime = connected && status?.uptime ? parseRouterOsDuration(status.uptime) : undefined;
  const [counters] = await router.print('/interface', { ...call, where: { name: iface } });
  return {
    connected_seconds_ago: connected ? Math.floor(uptime ?? 0) : null,
    rx_bytes: parseRouterOsInteger(counters?.['rx-byte']) ?? 0,
    tx_bytes: parseRouterOsInteger(counters?.['tx-byte']) ?? 0,
  };
}

async function pingFrom(router: RouterConnection, to: string, from: string, call: Call) {
  const replies = await router.write(
    '/ping',
    { address: to, 'src-address': from, count: String(PINGS) },
    call,
  );
  const last = replies.at(-1);
  return {
    sent: parseRouterOsInteger(last?.sent) ?? replies.length,
    received: parseRouterOsInteger(last?.received) ?? 0,
  };
}
