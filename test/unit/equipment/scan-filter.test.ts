import { expect } from 'chai';
import { buildScan, isPrivateIpv4, type LanScan } from '../../../controller/modules/equipment/scan-filter.js';

const lookup = (prefix: string) => ({ '24A43C': 'Ubiquiti Inc' })[prefix];

const base: LanScan = {
  arp: [],
  leases: [],
  addresses: [
    { address: '192.168.1.23/24', interface: 'ether1' },
    { address: '192.168.50.1/24', interface: 'bridge-lan' },
    { address: '10.5.50.1/24', interface: 'bridge-hotspot' },
    { address: '172.17.0.1/24', interface: 'veth1' },
  ],
  hotspot_interfaces: ['bridge-hotspot'],
  container_interfaces: ['veth1'],
};

const none = { lanIps: new Set<string>(), macs: new Set<string>() };

describe('equipment scan filter', () => {
  const cases: { name: string; scan: Partial<LanScan>; ips: string[]; hidden: number }[] = [
    {
      name: 'keeps a LAN device seen in ARP',
      scan: { arp: [{ address: '192.168.50.20', mac: '24:A4:3C:00:00:01', interface: 'bridge-lan' }] },
      ips: ['192.168.50.20'],
      hidden: 0,
    },
    {
      name: 'drops and counts hotspot clients',
      scan: {
        arp: [
          { address: '10.5.50.254', mac: '24:A4:3C:00:00:02', interface: 'bridge-hotspot' },
          { address: '10.5.50.253', mac: '24:A4:3C:00:00:03', interface: 'bridge-hotspot' },
        ],
      },
      ips: [],
      hidden: 2,
    },
    {
      name: 'counts a hotspot lease without ARP entry by its subnet',
      scan: { leases: [{ address: '10.5.50.200', mac: null, host_name: 'phone', dynamic: true }] },
      ips: [],
      hidden: 1,
    },
    {
      name: 'drops container interfaces',
      scan: { arp: [{ address: '172.17.0.2', mac: '24:A4:3C:00:00:04', interface: 'veth1' }] },
      ips: [],
      hidden: 0,
    },
    {
      name: "drops the router's own addresses",
      scan: { arp: [{ address: '192.168.50.1', mac: '24:A4:3C:00:00:05', interface: 'bridge-lan' }] },
      ips: [],
      hidden: 0,
    },
    {
      name: 'drops public and invalid addresses',
      scan: {
        arp: [
          { address: '8.8.8.8', mac: '24:A4:3C:00:00:06', interface: 'ether1' },
          { address: '100.64.0.9', mac: '24:A4:3C:00:00:07', interface: 'ether1' },
          { address: '192.168.50.300', mac: '24:A4:3C:00:00:08', interface: 'bridge-lan' },
        ],
      },
      ips: [],
      hidden: 0,
    },
    {
      name: 'crosses leases and ARP into one line per address, sorted numerically',
      scan: {
        arp: [
          { address: '192.168.50.100', mac: '24:A4:3C:00:00:09', interface: 'bridge-lan' },
          { address: '192.168.50.9', mac: null, interface: 'bridge-lan' },
        ],
        leases: [
          { address: '192.168.50.100', mac: '24:A4:3C:00:00:09', host_name: 'ap-toit', dynamic: true },
          { address: '192.168.50.9', mac: '24:A4:3C:00:00:0A', host_name: 'cam', dynamic: false },
          { address: '192.168.1.50', mac: null, host_name: null, dynamic: true },
        ],
      },
      ips: ['192.168.1.50', '192.168.50.9', '192.168.50.100'],
      hidden: 0,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const answer = buildScan({ ...base, ...c.scan }, none, { all: false, lookup });
      expect(answer.discovered.map((d) => d.lan_ip)).to.deep.equal(c.ips);
      expect(answer.hotspot_clients_hidden).to.equal(c.hidden);
    });
  }

  it('fills a line from both sources, with vendor, logo, reason and already_added', () => {
    const answer = buildScan(
      {
        ...base,
        arp: [
          { address: '192.168.50.9', mac: null, interface: 'bridge-lan' },
          { address: '192.168.50.10', mac: 'DA:00:00:00:00:01', interface: 'bridge-lan' },
        ],
        leases: [{ address: '192.168.50.9', mac: '24:A4:3C:00:00:0A', host_name: 'cam', dynamic: false }],
      },
      { lanIps: new Set(), macs: new Set(['24:A4:3C:00:00:0A']) },
      { all: false, lookup },
    );
    expect(answer.discovered).to.deep.equal([
      {
        lan_ip: '192.168.50.9',
        interface: 'bridge-lan',
        mac: '24:A4:3C:00:00:0A',
        hostname: 'cam',
        already_added: true,
        vendor: 'Ubiquiti Inc',
        vendor_logo: 'ubiquiti',
        vendor_reason: null,
      },
      {
        lan_ip: '192.168.50.10',
        interface: 'bridge-lan',
        mac: 'DA:00:00:00:00:01',
        hostname: null,
        already_added: false,
        vendor: null,
        vendor_logo: 'generic',
        vendor_reason: 'MAC_ALEATOIRE',
      },
    ]);
  });

  it('all=true returns every line unfiltered, hiding nothing', () => {
    const answer = buildScan(
      {
        ...base,
        arp: [
          { address: '10.5.50.254', mac: null, interface: 'bridge-hotspot' },
          { address: '8.8.8.8', mac: null, interface: 'ether1' },
        ],
      },
      none,
      { all: true, lookup },
    );
    expect(answer.discovered.map((d) => d.lan_ip)).to.deep.equal(['8.8.8.8', '10.5.50.254']);
    expect(answer.hotspot_clients_hidden).to.equal(0);
  });

  const privates: [string, boolean][] = [
    ['10.0.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.254', true],
    ['172.32.0.1', false],
    ['192.168.0.1', true],
    ['192.169.0.1', false],
    ['100.64.0.1', false],
    ['1.1.1.1', false],
    ['192.168.1', false],
    ['192.168.1.256', false],
    ['', false],
  ];
  for (const [ip, ok] of privates)
    it(`private ${ip || '(empty)'}: ${ok}`, () => expect(isPrivateIpv4(ip)).to.equal(ok));
});
