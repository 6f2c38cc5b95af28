// `equipment.pin` and `equipment.unpin`: what makes a client's device reachable through its router,
// put in place and taken away idempotently. Everything placed carries the comment
// `ticketnet:<device id>`, so a replay finds it again instead of adding a second rule or probe.
import { isIPv4 } from 'node:net';
import { equipmentMarker, type CommandOutput, type CommandParams } from '../../protocol/index.js';
import { readCapabilities } from '../routeros/read-facts.js';
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsBoolean } from '../routeros/ros-values.js';

export const NAT_MENU = '/ip/firewall/nat';
export const LEASE_MENU = '/ip/dhcp-server/lease';
export const NETWATCH_MENU = '/tool/netwatch';

type PinParams = CommandParams<'equipment.pin'>;
type PinOutput = CommandOutput<'equipment.pin'>;

export const sameMac = (a: string | null | undefined, b: string | null | undefined): boolean =>
  !!a && !!b && a.toUpperCase() === b.toUpperCase();

/** The lease of this MAC, else of this address (the MAC wins: a device keeps its MAC when it moves). */
export function leaseOf(
  leases: readonly Record<string, string>[],
  mac: string | null,
  address: string,
): Record<string, string> | undefined {
  if (mac) return leases.find((l) => sameMac(l['mac-address'], mac));
  return leases.find((l) => l.address === address || l['active-address'] === address);
}

async function pinLease(
  router: RouterConnection,
  p: PinParams,
  call: RouterCallOptions,
): Promise<boolean | null> {
  const leases = await router.print(LEASE_MENU, {
    ...call,
    proplist: ['.id', 'address', 'active-address', 'mac-address', 'dynamic'],
  });
  const lease = leaseOf(leases, p.mac, p.lan_ip);
  if (!lease) {
    // without a MAC and without a lease of this address there is nothing to reserve
    if (!p.mac) return null;
    // no lease for this MAC (a fixed address on the device): a static one keeps the address reserved
    await router.add(
      LEASE_MENU,
      { address: p.lan_ip, 'mac-address': p.mac.toUpperCase(), comment: equipmentMarker(p.device_id) },
      call,
    );
    return true;
  }
  if (parseRouterOsBoolean(lease.dynamic) === true) {
    await router.call(`${LEASE_MENU}/make-static`, { '.id': lease['.id']! }, call);
  }
  return true;
}

function ruleProps(p: PinParams, src: string | null): Record<string, string> {
  return {
    chain: 'dstnat',
    action: 'dst-nat',
    protocol: 'tcp',
    // only the router's own addresses: a LAN host's traffic to the internet on this port is left alone
    'dst-address-type': 'local',
    'dst-port': String(p.dstnat_port),
    'to-addresses': p.lan_ip,
    'to-ports': String(p.service_port),
    ...(src ? { 'src-address': src } : {}),
    comment: equipmentMarker(p.device_id),
  };
}

async function placeRule(
  router: RouterConnection,
  p: PinParams,
  src: string | null,
  call: RouterCallOptions,
): Promise<boolean> {
  const marker = equipmentMarker(p.device_id);
  const rules = await router.print(NAT_MENU, { ...call, where: { comment: marker }, proplist: ['.id'] });
  const [first, ...extra] = rules;
  if (extra.length > 0)
    await router.remove(
      NAT_MENU,
      extra.map((r) => r['.id']!),
      call,
    );
  if (first) {
    await router.set(NAT_MENU, first['.id']!, { ...ruleProps(p, src), disabled: 'no' }, call);
    return false;
  }
  await router.add(NAT_MENU, ruleProps(p, src), call);
  return true;
}

async function placeProbe(router: RouterConnection, p: PinParams, call: RouterCallOptions): Promise<boolean> {
  const marker = equipmentMarker(p.device_id);
  const probes = await router.print(NETWATCH_MENU, {
    ...call,
    where: { comment: marker },
    proplist: ['.id'],
  });
  if (p.probe_interval_seconds === null) {
    if (probes.length > 0)
      await router.remove(
        NETWATCH_MENU,
        probes.map((r) => r['.id']!),
        call,
      );
    return false;
  }
  const caps = await readCapabilities(router, call);
  const props: Record<string, string> = {
    host: p.lan_ip,
    interval: `${p.probe_interval_seconds}s`,
    comment: marker,
    ...(caps?.netwatchProbe === 'tcp-conn' ? { type: 'tcp-conn', port: String(p.service_port) } : {}),
  };
  const [first, ...extra] = probes;
  if (extra.length > 0)
    await router.remove(
      NETWATCH_MENU,
      extra.map((r) => r['.id']!),
      call,
    );
  if (first) await router.set(NETWATCH_MENU, first['.id']!, { ...props, disabled: 'no' }, call);
  else await router.add(NETWATCH_MENU, props, call);
  return true;
}

export async function pinEquipment(
  router: RouterConnection,
  p: PinParams,
  options: RouterCallOptions = {},
): Promise<PinOutput> {
  const call = options.signal ? { signal: options.signal } : {};
  // the lease first: a rule towards an address the DHCP server may hand to another host is a trap
  const leaseStatic = p.pin_lease ? await pinLease(router, p, call) : null;
  const local = p.agent_only ? await router.localAddress() : undefined;
  const src = local && isIPv4(local) ? local : null;
  const ruleAdded = await placeRule(router, p, src, call);
  const probe = await placeProbe(router, p, call);
  return { lease_static: leaseStatic, rule_added: ruleAdded, src_address: src, probe };
}

export async function unpinEquipment(
  router: RouterConnection,
  deviceId: string,
  options: RouterCallOptions = {},
): Promise<CommandOutput<'equipment.unpin'>> {
  const call = options.signal ? { signal: options.signal } : {};
  const marker = equipmentMarker(deviceId);
  const rules = await router.print(NAT_MENU, { ...call, where: { comment: marker }, proplist: ['.id'] });
  if (rules.length > 0)
    await router.remove(
      NAT_MENU,
      rules.map((r) => r['.id']!),
      call,
    );
  const probes = await router.print(NETWATCH_MENU, {
    ...call,
    where: { comment: marker },
    proplist: ['.id'],
  });
  if (probes.length > 0)
    await router.remove(
      NETWATCH_MENU,
      probes.map((r) => r['.id']!),
      call,
    );
  return { rules_removed: rules.length, probes_removed: probes.length };
}
