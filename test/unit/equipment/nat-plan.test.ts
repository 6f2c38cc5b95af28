import { expect } from 'chai';
import { natRulePlan, routerSyntax } from '../../../controller/modules/equipment/nat-plan.js';
import { capabilities } from '../../../controller/modules/equipment/quota.js';

const device = {
  id: '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b',
  lan_ip: '192.168.50.20',
  mac_address: '24:a4:3c:00:00:01',
  service_port: 80,
  dstnat_port: 20001,
  monitored: true,
};

describe('equipment NAT plan', () => {
  const syntaxes: [string | null, boolean, boolean][] = [
    ['6.49.10', false, false],
    ['7.1', true, false],
    ['7.4', true, true],
    ['7.19', true, true],
    [null, false, false],
  ];
  for (const [version, slashed, tcp] of syntaxes) {
    it(`syntax of ${String(version)}`, () =>
      expect(routerSyntax(version)).to.deep.equal({ slashed, netwatchTcp: tcp }));
  }

  it('v7: slashed menus, the lease first, a TCP probe on the service port', () => {
    const plan = natRulePlan(device, routerSyntax('7.19'), '127.0.0.1');
    expect(plan.router_commands).to.have.length(3);
    expect(plan.router_commands[0]).to.match(
      /^:if \(\[:len \[\/ip\/dhcp-server\/lease find where mac-address="24:A4:3C:00:00:01"\]\] = 0\)/,
    );
    expect(plan.router_commands[0]).to.include('make-static');
    expect(plan.router_commands[1]).to.include(
      '/ip/firewall/nat add chain=dstnat action=dst-nat protocol=tcp',
    );
    expect(plan.router_commands[1]).to.include(
      'dst-port=20001 to-addresses=192.168.50.20 to-ports=80 src-address=127.0.0.1',
    );
    expect(plan.router_commands[2]).to.include(
      '/tool/netwatch add host=192.168.50.20 type=tcp-conn port=80 interval=60s',
    );
    expect(plan.remove_command).to.equal(
      '/ip/firewall/nat remove [find where comment="ticketnet:0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b"]; /tool/netwatch remove [find where comment="ticketnet:0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b"]',
    );
  });

  it('v6: spaced menus, an ICMP probe, no probe when not monitored', () => {
    const plan = natRulePlan({ ...device, monitored: false, mac_address: null }, routerSyntax('6.49.10'));
    expect(plan.router_commands).to.have.length(2);
    expect(plan.router_commands[0]).to.equal(
      ':foreach l in=[/ip dhcp-server lease find where address="192.168.50.20" dynamic] do={/ip dhcp-server lease make-static $l}',
    );
    expect(plan.router_commands[1]).to.include('/ip firewall nat add ');
    expect(plan.router_commands[1]).not.to.include('src-address');
  });
});

describe('equipment quota', () => {
  const cases: {
    name: string;
    max: number | null | undefined;
    used: number;
    enforced: boolean;
    can: boolean | null;
    reason: string | null;
    remaining: number | null;
  }[] = [
    {
      name: 'rights unreadable',
      max: undefined,
      used: 3,
      enforced: true,
      can: null,
      reason: null,
      remaining: null,
    },
    {
      name: 'no plan',
      max: null,
      used: 0,
      enforced: true,
      can: false,
      reason: 'SUIVI_PRO_REQUIRED',
      remaining: null,
    },
    { name: 'Essentiel with room', max: 10, used: 9, enforced: true, can: true, reason: null, remaining: 1 },
    {
      name: 'Essentiel full',
      max: 10,
      used: 10,
      enforced: false,
      can: false,
      reason: 'DEVICE_QUOTA_REACHED',
      remaining: 0,
    },
    { name: 'Etendu', max: 30, used: 10, enforced: true, can: true, reason: null, remaining: 20 },
    {
      name: 'over the cap (added while not enforced)',
      max: 10,
      used: 12,
      enforced: true,
      can: false,
      reason: 'DEVICE_QUOTA_REACHED',
      remaining: 0,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const caps = capabilities(c.max, c.used, c.enforced);
      expect(caps).to.deep.include({
        can_add_devices: c.can,
        reason: c.reason,
        enforced: c.enforced,
        devices_used: c.used,
        devices_remaining: c.remaining,
      });
    });
  }
});
