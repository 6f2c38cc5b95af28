// The router's own IPv4 addresses (`/ip address`): the sources the relay takes RADIUS from unless
// the operator gave an allow-list. A hotspot sends RADIUS from the address of the interface that
// faces the agent, which is one of these.
import type { RouterConnection } from '../routeros/router-connection.js';
import { parseIpv4Block, type Ipv4Block } from './ipv4-cidr.js';

/** Each enabled `/ip address` of the router as a single-address block. */
export async function readRouterAddresses(
  router: RouterConnection,
  timeoutMs = 10_000,
): Promise<Ipv4Block[]> {
  const rows = await router.print('/ip/address', { proplist: ['address', 'disabled'], timeoutMs });
  const blocks: Ipv4Block[] = [];
  for (const row of rows) {
    if (row.disabled === 'true' || !row.address) continue;
    const block = parseIpv4Block(row.address.split('/')[0]!);
    if (block) blocks.push(block);
  }
  return blocks;
}
