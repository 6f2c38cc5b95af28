// `vpn.wireguard.apply`, `vpn.sstp.apply` and `vpn.transport.remove`:
// the router's side of a remote-access transport. Each apply is idempotent (an entry found by
// name is updated, not added twice) and tags what it adds with TRANSPORT_COMMENT, so a removal
// takes only our entries. Nothing here touches the firewall or the routes.
import type { CommandOutput, CommandParams } from '../../protocol/index.js';
import { readCapabilities } from '../routeros/read-facts.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import { RouterError } from '../routeros/router-error.js';

export const TRANSPORT_COMMENT = 'ticketnet: remote access';

type Call = { signal?: AbortSignal };
const WG = '/interface/wireguard';
const WG_PEERS = '/interface/wireguard/peers';
const SSTP = '/interface/sstp-client';
const ADDRESSES = '/ip/address';

export async function applyWireguard(
  router: RouterConnection,
  p: CommandParams<'vpn.wireguard.apply'>,
  call: Call,
): Promise<CommandOutput<'vpn.wireguard.apply'>> {
  const caps = await readCapabilities(router, call);
  if (!caps?.wireguard)
    throw new RouterError(
      'ROUTER_TRAP',
      `WireGuard needs RouterOS 7 (this router runs ${caps?.version.text ?? 'an unknown version'})`,
      {
        retryable: false,
      },
    );
  const [existing] = await router.print(WG, { ...call, where: { name: p.interface } });
  if (existing?.['.id'])
    await router.set(WG, existing['.id'], { 'private-key': p.private_key, disabled: 'no' }, call);
  else
    await router.add(
      WG,
      { name: p.interface, 'private-key': p.private_key, comment: TRANSPORT_COMMENT },
      call,
    );

  // One peer, the VPN end: any other peer of ours on this interface is an older key set.
  const peers = await router.print(WG_PEERS, { ...call, where: { interface: p.interface } });
  const peer = {
    interface: p.interface,
    'public-key': p.server_public_key,
    'preshared-key': p.preshared_key,
    'endpoint-address': p.endpoint_host,
    'endpoint-port': String(p.endpoint_port),
    'allowed-address': p.allowed_address,
    'persistent-keepalive': `${p.keepalive_seconds}s`,
  };
  const same = peers.find((r) => r['public-key'] === p.server_public_key);
  const stale = peers.filter((r) => r !== same && r.comment === TRANSPORT_COMMENT).map((r) => r['.id']!);
  if (stale.length > 0) await router.remove(WG_PEERS, stale, call);
  if (same?.['.id']) await router.set(WG_PEERS, same['.id'], { ...peer, disabled: 'no' }, call);
  else await router.add(WG_PEERS, { ...peer, comment: TRANSPORT_COMMENT }, call);

  await ensureAddress(router, p.interface, p.address, call);
  const [applied] = await router.print(WG, { ...call, where: { name: p.interface } });
  const publicKey = applied?.['public-key'];
  if (!publicKey) throw new RouterError('ROUTER_TRAP', `${p.interface} shows no public key after the apply`);
  return { interface: p.interface, public_key: publicKey };
}

export async function applySstp(
  router: RouterConnection,
  p: CommandParams<'vpn.sstp.apply'>,
  call: Call,
): Promise<CommandOutput<'vpn.sstp.apply'>> {
  const props = {
    'connect-to': p.connect_to,
    port: String(p.port),
    user: p.user,
    password: p.password,
    // The tunnel carries management only: the router's own default route stays where it is.
    'add-default-route': 'no',
    disabled: 'no',
  };
  const [existing] = await router.print(SSTP, { ...call, where: { name: p.interface } });
  if (existing?.['.id']) await router.set(SSTP, existing['.id'], props, call);
  else await router.add(SSTP, { name: p.interface, ...props, comment: TRANSPORT_COMMENT }, call);
  return { interface: p.interface };
}

export async function removeTransport(
  router: RouterConnection,
  p: CommandParams<'vpn.transport.remove'>,
  call: Call,
): Promise<CommandOutput<'vpn.transport.remove'>> {
  const menu = p.protocol === 'WIREGUARD' ? WG : SSTP;
  const caps = await readCapabilities(router, call);
  if (p.protocol === 'WIREGUARD' && !caps?.wireguard) return { removed: false };
  const [entry] = await router.print(menu, { ...call, where: { name: p.interface } });
  if (!entry?.['.id']) return { removed: false };
  const addresses = await router.print(ADDRESSES, { ...call, where: { interface: p.interface } });
  const ours = addresses.filter((a) => a.comment === TRANSPORT_COMMENT).map((a) => a['.id']!);
  if (ours.length > 0) await router.remove(ADDRESSES, ours, call);
  if (p.protocol === 'WIREGUARD') {
    const peers = await router.print(WG_PEERS, { ...call, where: { interface: p.interface } });
    const ids = peers.map((r) => r['.id']!).filter(Boolean);
    if (ids.length > 0) await router.remove(WG_PEERS, ids, call);
  }
  await router.remove(menu, [entry['.id']], call);
  return { removed: true };
}

async function ensureAddress(
  router: RouterConnection,
  iface: string,
  address: string,
  call: Call,
): Promise<void> {
  const present = await router.print(ADDRESSES, { ...call, where: { interface: iface } });
  const mine = present.filter((a) => a.comment === TRANSPORT_COMMENT);
  if (mine.some((a) => a.address === address)) return;
  // A former management address of this interface (an earlier channel) gives way to the new one.
  if (mine.length > 0)
    await router.remove(
      ADDRESSES,
      mine.map((a) => a['.id']!),
      call,
    );
  await router.add(ADDRESSES, { address, interface: iface, comment: TRANSPORT_COMMENT }, call);
}
