// `vpn.rescue.enable` and `vpn.rescue.read`: the router's Back To Home relay, the rescue path when
// both tunnels are down. Only `/ip/cloud` and its per-user menu are written (the relay brings its
// own WireGuard interface): no firewall, address or route, and never `/interface/l2tp-server` or
// the quick-setup VPN. Which menus exist comes from the capability table.
import nacl from 'tweetnacl';
import type { CommandOutput, CommandParams } from '../../protocol/index.js';
import {
  BACK_TO_HOME_ARCHITECTURES,
  capabilitiesFor,
  parseRouterOsVersion,
} from '../routeros/capabilities.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsInteger } from '../routeros/ros-values.js';

type Call = { signal?: AbortSignal };
const CLOUD = '/ip/cloud';
const COMMENT = 'ticketnet: rescue relay';

/** The relay's menus on this router, or why it has none. */
async function relaySupport(router: RouterConnection, call: Call) {
  const [resource] = await router.print('/system/resource', call);
  const version = parseRouterOsVersion(resource?.version ?? '');
  const architecture = resource?.['architecture-name'] ?? 'unknown';
  if (!version) return { ok: false as const, reason: 'unknown RouterOS version' };
  const caps = capabilitiesFor(version);
  if (!caps.backToHome.available)
    return { ok: false as const, reason: `RouterOS ${version.text} has no Back To Home (7.12 or later)` };
  if (!BACK_TO_HOME_ARCHITECTURES.includes(architecture))
    return { ok: false as const, reason: `Back To Home does not run on ${architecture} hardware` };
  return { ok: true as const, usersMenu: caps.backToHome.usersMenu };
}

export async function enableRescue(
  router: RouterConnection,
  p: CommandParams<'vpn.rescue.enable'>,
  call: Call,
): Promise<CommandOutput<'vpn.rescue.enable'>> {
  const support = await relaySupport(router, call);
  if (!support.ok) return { state: 'UNAVAILABLE_ON_MODEL', reason: support.reason };
  // Dynamic DNS first: the relay needs the router's cloud name.
  await router.write(`${CLOUD}/set`, { 'ddns-enabled': 'yes' }, call);
  await router.write(`${CLOUD}/set`, { 'back-to-home-vpn': 'enabled' }, call);
  if (support.usersMenu) {
    const found = await router.print(support.usersMenu, { ...call, where: { name: p.user } });
    // allow-lan=yes: a user without it is put in a firewall address list, which we never touch.
    if (found.length === 0)
      await router.add(support.usersMenu, { name: p.user, 'allow-lan': 'yes', comment: COMMENT }, call);
  }
  return { state: 'ENABLING' };
}

export async function readRescue(
  router: RouterConnection,
  p: CommandParams<'vpn.rescue.read'>,
  call: Call,
): Promise<CommandOutput<'vpn.rescue.read'>> {
  const support = await relaySupport(router, call);
  if (!support.ok)
    return {
      state: 'UNAVAILABLE_ON_MODEL',
      vpn_status: support.reason,
      dns_name: null,
      port: null,
      sealed_profile: null,
    };
  const [cloud] = await router.print(CLOUD, call);
  const status = cloud?.['vpn-status'] ?? '';
  let profile: string | undefined;
  if (support.usersMenu) {
    const found = await router.print(support.usersMenu, { ...call, where: { name: p.user } });
    if (found.length > 0) {
      const [shown] = await router.write(
        '/interface/wireguard/peers/show-client-config',
        { numbers: p.user },
        call,
      );
      profile = shown?.conf;
    }
  } else {
    profile = cloud?.['vpn-wireguard-client-config'];
  }
  const complete = Boolean(profile && /PrivateKey/.test(profile) && /Endpoint/.test(profile));
  return {
    state: complete && /running/i.test(status) ? 'READY' : 'NOT_READY',
    vpn_status: status.slice(0, 500),
    dns_name: cloud?.['vpn-dns-name'] || null,
    port: parseRouterOsInteger(cloud?.['vpn-port']) ?? null,
    sealed_profile: complete ? seal(profile!, p.seal_to) : null,
  };
}

function seal(text: string, to: string) {
  const ephemeral = nacl.box.keyPair();
  const nonce = nacl.randomBytes(nacl.box.nonceLength);
  const box = nacl.box(Buffer.from(text, 'utf8'), nonce, Buffer.from(to, 'base64'), ephemeral.secretKey);
  const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
  return { ephemeral_public_key: b64(ephemeral.publicKey), nonce: b64(nonce), box: b64(box) };
}
