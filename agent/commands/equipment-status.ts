// `equipment.status`: what the router holds for each device, read in one print per menu whatever
// the number of devices (the monitoring job asks for all of a router's devices at once).
import { equipmentMarker, type CommandOutput, type CommandParams } from '../../protocol/index.js';
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsBoolean } from '../routeros/ros-values.js';
import { LEASE_MENU, NAT_MENU, NETWATCH_MENU, leaseOf, sameMac } from './equipment-pin.js';

type StatusOutput = CommandOutput<'equipment.status'>;

const probeStatus = (text: string | undefined): 'up' | 'down' | 'unknown' =>
  text === 'up' || text === 'down' ? text : 'unknown';

export async function readEquipmentStatus(
  router: RouterConnection,
  params: CommandParams<'equipment.status'>,
  options: RouterCallOptions = {},
): Promise<StatusOutput> {
  const call = options.signal ? { signal: options.signal } : {};
  const rules = (await router.print(NAT_MENU, call)).filter((r) =>
    (r.comment ?? '').startsWith('ticketnet:'),
  );
  const leases = await router.print(LEASE_MENU, {
    ...call,
    proplist: ['address', 'active-address', 'mac-address', 'dynamic', 'disabled'],
  });
  const arp = (
    await router.print('/ip/arp', { ...call, proplist: ['address', 'mac-address', 'disabled'] })
  ).filter((a) => a['mac-address'] && parseRouterOsBoolean(a.disabled) !== true);
  const probes = (await router.print(NETWATCH_MENU, call)).filter((r) =>
    (r.comment ?? '').startsWith('ticketnet:'),
  );
  return {
    devices: params.devices.map((d) => {
      const marker = equipmentMarker(d.device_id);
      const mine = rules.filter((r) => r.comment === marker);
      const rule = mine[0];
      const lease = leaseOf(leases, d.mac, d.lan_ip);
      const probe = probes.find((r) => r.comment === marker);
      return {
        device_id: d.device_id,
        rule: rule
          ? {
              disabled: parseRouterOsBoolean(rule.disabled) === true,
              chain: rule.chain ?? '',
              action: rule.action ?? '',
              protocol: rule.protocol ?? '',
              dst_port: rule['dst-port'] ?? '',
              to_addresses: rule['to-addresses'] ?? '',
              to_ports: rule['to-ports'] ?? '',
            }
          : null,
        extra_rules: Math.max(0, mine.length - 1),
        lease: lease
          ? {
              address: lease['active-address'] || lease.address || '',
              mac: lease['mac-address'] ?? '',
              dynamic: parseRouterOsBoolean(lease.dynamic) === true,
            }
          : null,
        arp_mac: arp.find((a) => a.address === d.lan_ip)?.['mac-address'] ?? null,
        arp_ip_of_mac: d.mac ? (arp.find((a) => sameMac(a['mac-address'], d.mac))?.address ?? null) : null,
        probe: probe
          ? {
              status: probeStatus(probe.status),
              since: probe.since ?? null,
              disabled: parseRouterOsBoolean(probe.disabled) === true,
            }
          : null,
      };
    }),
  };
}
