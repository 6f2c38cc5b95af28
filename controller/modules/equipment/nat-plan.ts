// The fallback plan returned with every device: the RouterOS commands the app runs on the LAN when
// the backend could not reach the router (and the one that undoes them). Written for the router's
// version, as the only place here that knows RouterOS 6 from 7: menus spaced on 6 (`/ip firewall
// nat`), slashed on 7; a TCP netwatch probe from 7.4 (an ICMP one before). Every command can be
// run twice: each looks for what carries the device's marker before adding it.
import { equipmentMarker } from '../../../protocol/index.js';

export interface RouterSyntax {
  /** `/ip/firewall/nat` (7) or `/ip firewall nat` (6). */
  slashed: boolean;
  /** netwatch `type=tcp-conn port=` (7.4+). */
  netwatchTcp: boolean;
}

/** The syntax of a RouterOS version as the agent reported it; unknown: version 6's, which 7 reads too. */
export function routerSyntax(version: string | null | undefined): RouterSyntax {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  const major = Number(m?.[1] ?? 0);
  const minor = Number(m?.[2] ?? 0);
  return { slashed: major >= 7, netwatchTcp: major > 7 || (major === 7 && minor >= 4) };
}

export interface PlanDevice {
  id: string;
  lan_ip: string;
  mac_address: string | null;
  service_port: number;
  dstnat_port: number;
  monitored: boolean;
}

export interface NatRulePlan {
  router_commands: string[];
  remove_command: string;
}

export const PROBE_INTERVAL_SECONDS = 60;

export function natRulePlan(
  device: PlanDevice,
  syntax: RouterSyntax,
  srcAddress?: string | null,
): NatRulePlan {
  const menu = (path: string) => (syntax.slashed ? `/${path.replaceAll(' ', '/')}` : `/${path}`);
  const lease = menu('ip dhcp-server lease');
  const nat = menu('ip firewall nat');
  const netwatch = menu('tool netwatch');
  const marker = `"${equipmentMarker(device.id)}"`;
  const mac = device.mac_address?.toUpperCase();
  // The lease first, and required: a forward to an address the DHCP server may give to another
  // host would open that host instead.
  const leaseCommand = mac
    ? `:if ([:len [${lease} find where mac-address="${mac}"]] = 0) do={${lease} add address=${device.lan_ip} mac-address=${mac} comment=${marker}} else={:foreach l in=[${lease} find where mac-address="${mac}" dynamic] do={${lease} make-static $l}}`
    : `:foreach l in=[${lease} find where address="${device.lan_ip}" dynamic] do={${lease} make-static $l}`;
  const rule = [
    'chain=dstnat',
    'action=dst-nat',
    'protocol=tcp',
    'dst-address-type=local',
    `dst-port=${device.dstnat_port}`,
    `to-addresses=${device.lan_ip}`,
    `to-ports=${device.service_port}`,
    ...(srcAddress ? [`src-address=${srcAddress}`] : []),
    `comment=${marker}`,
  ].join(' ');
  const commands = [
    leaseCommand,
    `:if ([:len [${nat} find where comment=${marker}]] = 0) do={${nat} add ${rule}}`,
  ];
  if (device.monitored) {
    const probe = [
      `host=${device.lan_ip}`,
      ...(syntax.netwatchTcp ? ['type=tcp-conn', `port=${device.service_port}`] : []),
      `interval=${PROBE_INTERVAL_SECONDS}s`,
      `comment=${marker}`,
    ].join(' ');
    commands.push(
      `:if ([:len [${netwatch} find where comment=${marker}]] = 0) do={${netwatch} add ${probe}}`,
    );
  }
  return {
    router_commands: commands,
    remove_command: `${nat} remove [find where comment=${marker}]; ${netwatch} remove [find where comment=${marker}]`,
  };
}
