// The scan's rules: ARP entries and DHCP leases crossed into one line per address, the interface of
// a lease without ARP entry found from the router's own subnets, then what a client must not be
// offered dropped (docs/api/equipment.md): hotspot users (counted), container interfaces, the
// router's own addresses, anything not a private IPv4 address. Sorted by address.
import type { CommandOutput } from '../../../protocol/index.js';
import { vendorOf, type OuiLookup, type VendorInfo, ieeeRegistry } from './vendor.js';

export type LanScan = CommandOutput<'lan.scan'>;

export interface DiscoveredDevice extends VendorInfo {
  lan_ip: string;
  interface: string | null;
  mac: string | null;
  hostname: string | null;
  already_added: boolean;
}

export interface ScanAnswer {
  discovered: DiscoveredDevice[];
  hotspot_clients_hidden: number;
}

/** 32-bit value of a dotted IPv4 address; undefined when it is not one. */
export function ipv4Number(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    n = n * 256 + Number(part);
  }
  return n;
}

const inRange = (n: number, base: string, bits: number): boolean => {
  const b = ipv4Number(base)!;
  const size = 2 ** (32 - bits);
  return n >= b && n < b + size;
};

/** RFC 1918 private IPv4 space: the only addresses a LAN device may be declared with. */
export function isPrivateIpv4(text: string): boolean {
  const n = ipv4Number(text);
  if (n === undefined) return false;
  return inRange(n, '10.0.0.0', 8) || inRange(n, '172.16.0.0', 12) || inRange(n, '192.168.0.0', 16);
}

/** The interface of the router's subnet holding this address (`192.168.88.1/24` on bridge). */
function subnetInterface(address: string, addresses: LanScan['addresses']): string | null {
  const n = ipv4Number(address);
  if (n === undefined) return null;
  for (const a of addresses) {
    const [ip, bits] = a.address.split('/');
    const prefix = Number(bits ?? 32);
    const base = ipv4Number(ip ?? '');
    if (base === undefined || !(prefix >= 0 && prefix <= 32)) continue;
    const size = 2 ** (32 - prefix);
    if (Math.floor(n / size) === Math.floor(base / size)) return a.interface;
  }
  return null;
}

export interface Known {
  lanIps: ReadonlySet<string>;
  macs: ReadonlySet<string>;
}

export function buildScan(
  scan: LanScan,
  known: Known,
  options: { all: boolean; lookup?: OuiLookup },
): ScanAnswer {
  const lookup = options.lookup ?? ieeeRegistry;
  const lines = new Map<
    string,
    { lan_ip: string; interface: string | null; mac: string | null; hostname: string | null }
  >();
  for (const a of scan.arp) {
    lines.set(a.address, { lan_ip: a.address, interface: a.interface || null, mac: a.mac, hostname: null });
  }
  for (const l of scan.leases) {
    const line = lines.get(l.address);
    if (line) {
      line.mac ??= l.mac;
      line.hostname ??= l.host_name;
    } else {
      lines.set(l.address, {
        lan_ip: l.address,
        interface: subnetInterface(l.address, scan.addresses),
        mac: l.mac,
        hostname: l.host_name,
      });
    }
  }
  const hotspot = new Set(scan.hotspot_interfaces);
  const containers = new Set(scan.container_interfaces);
  const own = new Set(scan.addresses.map((a) => a.address.split('/')[0]));
  let hidden = 0;
  const kept = [...lines.values()].filter((line) => {
    if (options.all) return true;
    if (line.interface !== null && hotspot.has(line.interface)) {
      hidden++;
      return false;
    }
    if (line.interface !== null && containers.has(line.interface)) return false;
    if (own.has(line.lan_ip)) return false;
    return isPrivateIpv4(line.lan_ip);
  });
  const order = (ip: string) => ipv4Number(ip) ?? Number.MAX_SAFE_INTEGER;
  kept.sort((a, b) => order(a.lan_ip) - order(b.lan_ip) || a.lan_ip.localeCompare(b.lan_ip));
  return {
    discovered: kept.map((line) => ({
      ...line,
      already_added:
        known.lanIps.has(line.lan_ip) || (line.mac !== null && known.macs.has(line.mac.toUpperCase())),
      ...vendorOf(line.mac, lookup),
    })),
    hotspot_clients_hidden: hidden,
  };
}
