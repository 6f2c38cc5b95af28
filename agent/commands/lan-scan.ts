// `lan.scan`: the router's view of its LAN, handed over raw (ARP, DHCP leases, own addresses, the
// interfaces that hold a hotspot server, the container interfaces). Crossing and filtering them is
// the controller's rule (docs/api/equipment.md), so a rule change never needs agents upgraded.
import type { CommandOutput } from '../../protocol/index.js';
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsBoolean } from '../routeros/ros-values.js';

type LanScan = CommandOutput<'lan.scan'>;

const text = (value: string | undefined): string | null => {
  const v = value?.trim();
  return v ? v : null;
};

const enabled = (r: Record<string, string>): boolean => parseRouterOsBoolean(r.disabled) !== true;

export async function scanLan(router: RouterConnection, options: RouterCallOptions = {}): Promise<LanScan> {
  const call = options.signal ? { signal: options.signal } : {};
  const arp = await router.print('/ip/arp', {
    ...call,
    proplist: ['address', 'mac-address', 'interface', 'disabled'],
  });
  const leases = await router.print('/ip/dhcp-server/lease', {
    ...call,
    proplist: ['address', 'active-address', 'mac-address', 'host-name', 'dynamic', 'disabled'],
  });
  const addresses = await router.print('/ip/address', {
    ...call,
    proplist: ['address', 'interface', 'disabled'],
  });
  const hotspots = await router.print('/ip/hotspot', { ...call, proplist: ['interface', 'disabled'] });
  // `/interface` lists every kind on both versions; a container's veth is type `veth` (v7 only).
  const interfaces = await router.print('/interface', { ...call, proplist: ['name', 'type'] });
  return {
    arp: arp
      .filter((r) => r.address && enabled(r))
      .map((r) => ({ address: r.address!, mac: text(r['mac-address']), interface: r.interface ?? '' })),
    leases: leases
      .filter((r) => (r['active-address'] || r.address) && enabled(r))
      .map((r) => ({
        address: (r['active-address'] || r.address)!,
        mac: text(r['mac-address']),
        host_name: text(r['host-name']),
        dynamic: parseRouterOsBoolean(r.dynamic) === true,
      })),
    addresses: addresses
      .filter((r) => r.address && enabled(r))
      .map((r) => ({ address: r.address!, interface: r.interface ?? '' })),
    hotspot_interfaces: [
      ...new Set(
        hotspots
          .filter(enabled)
          .map((r) => r.interface ?? '')
          .filter(Boolean),
      ),
    ],
    container_interfaces: interfaces.filter((r) => r.type === 'veth' && r.name).map((r) => r.name!),
  };
}
