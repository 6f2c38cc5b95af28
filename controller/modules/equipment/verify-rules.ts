// The verification of one device, as a pure rule over what was read: the owner check, the link, and
// the router's state for the device. Reasons in their fixed order (docs/api/equipment.md): the first
// that applies is the answer.
import type { CommandOutput } from '../../../protocol/index.js';

export type DeviceState = CommandOutput<'equipment.status'>['devices'][number];

export type OwnerCheck = 'OK' | 'ROUTER_CHANGED_OWNER' | 'ROUTER_REALLOCATED';

export type VerifyReason =
  | 'ROUTER_CHANGED_OWNER'
  | 'ROUTER_REALLOCATED'
  | 'ROUTER_UNREACHABLE'
  | 'DEVICE_IP_CHANGED'
  | 'NAT_RULE_MISSING'
  | 'NAT_RULE_DISABLED'
  | 'NAT_RULE_MISMATCH'
  | 'DEVICE_NOT_SEEN';

/** Reasons `repair` fixes on the router (the lease too when it is not static). */
export const REPAIRABLE: ReadonlySet<VerifyReason> = new Set([
  'NAT_RULE_MISSING',
  'NAT_RULE_DISABLED',
  'NAT_RULE_MISMATCH',
]);
export const OWNER_REASONS: ReadonlySet<VerifyReason> = new Set([
  'ROUTER_CHANGED_OWNER',
  'ROUTER_REALLOCATED',
]);

export interface VerifyChecks {
  router_reachable: boolean;
  nat_rule_present: boolean | null;
  nat_rule_enabled: boolean | null;
  nat_rule_matches: boolean | null;
  lease_static: boolean | null;
  mac_matches_ip: boolean | null;
}

export interface VerifyResult {
  ok: boolean;
  reason: VerifyReason | null;
  checks: VerifyChecks;
  repair: { repairable: boolean };
}

export interface VerifyDevice {
  lan_ip: string;
  mac_address: string | null;
  service_port: number;
  dstnat_port: number;
}

const NOTHING_READ: Omit<VerifyChecks, 'router_reachable'> = {
  nat_rule_present: null,
  nat_rule_enabled: null,
  nat_rule_matches: null,
  lease_static: null,
  mac_matches_ip: null,
};

const sameMac = (a: string | null, b: string | null) => !!a && !!b && a.toUpperCase() === b.toUpperCase();

/** The rule forwards this device's port to its address and service port, as `equipment.pin` writes it. */
export function ruleMatches(
  rule: NonNullable<DeviceState['rule']>,
  extraRules: number,
  d: VerifyDevice,
): boolean {
  return (
    rule.chain === 'dstnat' &&
    rule.action === 'dst-nat' &&
    rule.protocol === 'tcp' &&
    rule.dst_port === String(d.dstnat_port) &&
    rule.to_addresses === d.lan_ip &&
    rule.to_ports === String(d.service_port) &&
    // a second marked rule is a mismatch: the router would use the first, whatever it says
    extraRules === 0
  );
}

/**
 * `state` undefined: the router could not be read (link down, no answer in time). Owner reasons
 * come before reading anything: a router that is no longer the client's is not read at all.
 */
export function verifyDevice(
  device: VerifyDevice,
  owner: OwnerCheck,
  state: DeviceState | undefined,
): VerifyResult {
  if (owner !== 'OK') {
    return {
      ok: false,
      reason: owner,
      checks: { router_reachable: state !== undefined, ...NOTHING_READ },
      repair: { repairable: false },
    };
  }
  if (state === undefined) {
    return {
      ok: false,
      reason: 'ROUTER_UNREACHABLE',
      checks: { router_reachable: false, ...NOTHING_READ },
      repair: { repairable: false },
    };
  }
  const rule = state.rule;
  const checks: VerifyChecks = {
    router_reachable: true,
    nat_rule_present: rule !== null,
    nat_rule_enabled: rule ? !rule.disabled : null,
    nat_rule_matches: rule ? ruleMatches(rule, state.extra_rules, device) : null,
    lease_static: state.lease ? !state.lease.dynamic : null,
    mac_matches_ip: macMatchesIp(device, state),
  };
  const moved =
    checks.mac_matches_ip === false ||
    (device.mac_address !== null && state.lease !== null && state.lease.address !== device.lan_ip);
  const seen = state.arp_mac !== null;
  let reason: VerifyReason | null = null;
  if (moved) reason = 'DEVICE_IP_CHANGED';
  else if (!checks.nat_rule_present) reason = 'NAT_RULE_MISSING';
  else if (!checks.nat_rule_enabled) reason = 'NAT_RULE_DISABLED';
  else if (!checks.nat_rule_matches) reason = 'NAT_RULE_MISMATCH';
  else if (!seen) reason = 'DEVICE_NOT_SEEN';
  return {
    ok: reason === null,
    reason,
    checks,
    // a dynamic lease is not a failure, but repair pins it
    repair: {
      repairable:
        (reason !== null && REPAIRABLE.has(reason)) || (reason === null && checks.lease_static === false),
    },
  };
}

/**
 * Whether the ARP table ties the device's MAC to its address: false when the address answers with
 * another MAC or the MAC answers on another address; null when the device has no MAC or is not seen.
 */
function macMatchesIp(device: VerifyDevice, state: DeviceState): boolean | null {
  if (!device.mac_address) return null;
  if (state.arp_mac !== null) return sameMac(state.arp_mac, device.mac_address);
  if (state.arp_ip_of_mac !== null) return state.arp_ip_of_mac === device.lan_ip;
  return null;
}

/** The rule is in place for access (present, enabled, matching): a PENDING device becomes ACTIVE. */
export const accessInPlace = (r: VerifyResult): boolean =>
  r.checks.nat_rule_present === true &&
  r.checks.nat_rule_enabled === true &&
  r.checks.nat_rule_matches === true;
