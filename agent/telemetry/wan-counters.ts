// The WAN interface's cumulative byte counters (since the router started), as the usage store and
// network-quality monitoring count them.
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsInteger } from '../routeros/ros-values.js';
import { findWanInterface } from '../routeros/wan-interface.js';

export interface WanCounters {
  interface: string;
  rx_bytes: number;
  tx_bytes: number;
}

/** The counters, or undefined when the router has no default route or its WAN cannot be read. */
export async function readWanCounters(
  router: RouterConnection,
  call: RouterCallOptions = {},
): Promise<WanCounters | undefined> {
  try {
    const name = await findWanInterface(router, call);
    if (!name) return undefined;
    const [iface] = await router.print('/interface', {
      ...call,
      where: { name },
      proplist: ['rx-byte', 'tx-byte'],
    });
    const rx = parseRouterOsInteger(iface?.['rx-byte']);
    const tx = parseRouterOsInteger(iface?.['tx-byte']);
    return rx === undefined || tx === undefined ? undefined : { interface: name, rx_bytes: rx, tx_bytes: tx };
  } catch {
    return undefined;
  }
}
