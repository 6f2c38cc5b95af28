// The router's WAN: the interface its active default route leaves through. Read from the route's
// gateway interface as the version prints it (`immediate-gw` on 7, `gateway-status` on 6: the one
// printed tells which, so no read of the version is needed), else from the address whose network
// holds the gateway, else the gateway itself when it names an interface (pppoe-out1).
import type { RouterCallOptions, RouterConnection } from './router-connection.js';
import { parseRouterOsBoolean } from './ros-values.js';

const ipToInt = (ip: string): number | undefined => {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return (((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!) >>> 0;
};

/** True when `ip` is inside `cidr` (`192.168.1.23/24`). */
export function inNetwork(ip: string, cidr: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/');
  const a = ipToInt(ip);
  const b = ipToInt(base);
  const n = Number(bits);
  if (a === undefined || b === undefined || !Number.isInteger(n) || n < 0 || n > 32) return false;
  const mask = n === 0 ? 0 : (0xffffffff << (32 - n)) >>> 0;
  return (a & mask) === (b & mask);
}

/** The interface named in a v7 `immediate-gw` or a v6 `gateway-status`; undefined when none. */
export function gatewayInterface(
  text: string | undefined,
  form: 'immediate-gw' | 'gateway-status',
): string | undefined {
  if (!text) return undefined;
  if (form === 'immediate-gw') return text.split('%')[1]?.trim() || undefined;
  return /reachable via\s+(\S+)/.exec(text)?.[1];
}

export async function findWanInterface(
  router: RouterConnection,
  options: RouterCallOptions = {},
): Promise<string | undefined> {
  // One read, asking only for what is used here.
  const routes = await router.print('/ip/route', {
    ...options,
    where: { 'dst-address': '0.0.0.0/0' },
    proplist: ['active', 'disabled', 'distance', 'gateway', 'immediate-gw', 'gateway-status'],
  });
  const active = routes.filter(
    (r) => parseRouterOsBoolean(r.active) !== false && parseRouterOsBoolean(r.disabled) !== true,
  );
  const route = active.sort((a, b) => Number(a.distance ?? 1) - Number(b.distance ?? 1))[0];
  if (!route) return undefined;
  const named =
    gatewayInterface(route['immediate-gw'], 'immediate-gw') ??
    gatewayInterface(route['gateway-status'], 'gateway-status');
  if (named) return named;
  const gateway = (route.gateway ?? '').split(',')[0]?.split('%')[0]?.trim() ?? '';
  if (ipToInt(gateway) === undefined) return gateway || undefined;
  const addresses = await router.print('/ip/address', {
    ...options,
    proplist: ['address', 'interface', 'disabled'],
  });
  const match = addresses.find(
    (a) => parseRouterOsBoolean(a.disabled) !== true && inNetwork(gateway, a.address ?? ''),
  );
  return match?.interface;
}
