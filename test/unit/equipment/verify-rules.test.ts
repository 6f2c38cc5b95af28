import { expect } from 'chai';
import {
  verifyDevice,
  type DeviceState,
  type OwnerCheck,
} from '../../../controller/modules/equipment/verify-rules.js';

const device = {
  lan_ip: '192.168.50.20',
  mac_address: '24:A4:3C:00:00:01',
  service_port: 80,
  dstnat_port: 20001,
};
const ID = '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b';
const healthy: DeviceState = {
  device_id: ID,
  rule: {
    disabled: false,
    chain: 'dstnat',
    action: 'dst-nat',
    protocol: 'tcp',
    dst_port: '20001',
    to_addresses: '192.168.50.20',
    to_ports: '80',
  },
  extra_rules: 0,
  lease: { address: '192.168.50.20', mac: '24:A4:3C:00:00:01', dynamic: false },
  arp_mac: '24:A4:3C:00:00:01',
  arp_ip_of_mac: '192.168.50.20',
  probe: null,
};
const rule = healthy.rule!;

describe('equipment verify: reasons in order', () => {
  const cases: {
    name: string;
    owner?: OwnerCheck;
    state: DeviceState | undefined;
    reason: string | null;
    repairable: boolean;
  }[] = [
    { name: 'healthy', state: healthy, reason: null, repairable: false },
    {
      name: 'a dynamic lease is repairable, not a failure',
      state: { ...healthy, lease: { ...healthy.lease!, dynamic: true } },
      reason: null,
      repairable: true,
    },
    {
      name: 'owner changed comes first',
      owner: 'ROUTER_CHANGED_OWNER',
      state: undefined,
      reason: 'ROUTER_CHANGED_OWNER',
      repairable: false,
    },
    {
      name: 'reallocated before unreachable',
      owner: 'ROUTER_REALLOCATED',
      state: undefined,
      reason: 'ROUTER_REALLOCATED',
      repairable: false,
    },
    { name: 'unreachable', state: undefined, reason: 'ROUTER_UNREACHABLE', repairable: false },
    {
      name: 'the MAC answers on another address: moved, before the rule',
      state: { ...healthy, rule: null, arp_mac: null, arp_ip_of_mac: '192.168.50.77' },
      reason: 'DEVICE_IP_CHANGED',
      repairable: false,
    },
    {
      name: 'another MAC on the address: moved',
      state: { ...healthy, arp_mac: '24:A4:3C:99:99:99' },
      reason: 'DEVICE_IP_CHANGED',
      repairable: false,
    },
    { name: 'rule missing', state: { ...healthy, rule: null }, reason: 'NAT_RULE_MISSING', repairable: true },
    {
      name: 'rule disabled',
      state: { ...healthy, rule: { ...rule, disabled: true, to_ports: '81' } },
      reason: 'NAT_RULE_DISABLED',
      repairable: true,
    },
    {
      name: 'rule to another port',
      state: { ...healthy, rule: { ...rule, to_ports: '8080' } },
      reason: 'NAT_RULE_MISMATCH',
      repairable: true,
    },
    {
      name: 'rule to another address',
      state: { ...healthy, rule: { ...rule, to_addresses: '192.168.50.21' } },
      reason: 'NAT_RULE_MISMATCH',
      repairable: true,
    },
    {
      name: 'rule on another public port',
      state: { ...healthy, rule: { ...rule, dst_port: '20002' } },
      reason: 'NAT_RULE_MISMATCH',
      repairable: true,
    },
    {
      name: 'a second marked rule',
      state: { ...healthy, extra_rules: 1 },
      reason: 'NAT_RULE_MISMATCH',
      repairable: true,
    },
    {
      name: 'device not in ARP (off): last',
      state: { ...healthy, arp_mac: null, arp_ip_of_mac: null },
      reason: 'DEVICE_NOT_SEEN',
      repairable: false,
    },
    {
      name: 'a rule missing outranks a device not seen',
      state: { ...healthy, rule: null, arp_mac: null, arp_ip_of_mac: null },
      reason: 'NAT_RULE_MISSING',
      repairable: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = verifyDevice(device, c.owner ?? 'OK', c.state);
      expect(r.reason).to.equal(c.reason);
      expect(r.ok).to.equal(c.reason === null);
      expect(r.repair.repairable).to.equal(c.repairable);
    });
  }

  it('answers the six checks; null where nothing was read', () => {
    expect(verifyDevice(device, 'OK', healthy).checks).to.deep.equal({
      router_reachable: true,
      nat_rule_present: true,
      nat_rule_enabled: true,
      nat_rule_matches: true,
      lease_static: true,
      mac_matches_ip: true,
    });
    expect(verifyDevice(device, 'OK', undefined).checks).to.deep.equal({
      router_reachable: false,
      nat_rule_present: null,
      nat_rule_enabled: null,
      nat_rule_matches: null,
      lease_static: null,
      mac_matches_ip: null,
    });
    const bare = verifyDevice({ ...device, mac_address: null }, 'OK', {
      ...healthy,
      rule: null,
      lease: null,
    });
    expect(bare.checks).to.include({
      nat_rule_present: false,
      nat_rule_enabled: null,
      nat_rule_matches: null,
      lease_static: null,
      mac_matches_ip: null,
    });
  });
});
