// Pure rules of remote access, as tables: the channel state machine, the transport resolve
// chooses, when a probe may retire the previous transport, sealing, addresses, the VPN end's parsers.
import { expect } from 'chai';
import { capabilitiesFor as agentCaps } from '../../../agent/routeros/capabilities.js';
import { capabilitiesFor as simCaps } from '../../routeros-sim/version-caps.js';
import {
  CHANNEL_TRANSITIONS,
  canMove,
  pathTo,
} from '../../../controller/modules/remote-access/channel-states.js';
import {
  parseAccelSessions,
  parseWireguardDump,
  LinuxVpnHost,
} from '../../../controller/modules/remote-access/linux-vpn-host.js';
import {
  probeState,
  retireRefusal,
  type ProbeFacts,
} from '../../../controller/modules/remote-access/probe-verdict.js';
import type { ChannelState } from '../../../controller/modules/remote-access/tables.js';
import {
  chooseTransport,
  routerOsMajor,
  type ExistingChannel,
} from '../../../controller/modules/remote-access/transport-choice.js';
import { tunnelAddressOf } from '../../../controller/modules/remote-access/tunnel-addresses.js';
import { newWireguardKeys, publicKeyOf } from '../../../controller/modules/remote-access/wireguard-keys.js';

const STATES = Object.keys(CHANNEL_TRANSITIONS) as ChannelState[];

describe('remote access: channel state machine', () => {
  const allowed: [ChannelState, ChannelState][] = [
    ['ISSUED', 'LOCAL_CONFIGURED'],
    ['LOCAL_CONFIGURED', 'DATA_PLANE_CONFIRMED'],
    ['DATA_PLANE_CONFIRMED', 'MANAGEMENT_CONFIRMED'],
    ['MANAGEMENT_CONFIRMED', 'ACTIVE'],
    ['ISSUED', 'FAILED'],
    ['LOCAL_CONFIGURED', 'FAILED'],
    ['DATA_PLANE_CONFIRMED', 'FAILED'],
    ['MANAGEMENT_CONFIRMED', 'FAILED'],
    ['ACTIVE', 'FAILED'],
    ['FAILED', 'LOCAL_CONFIGURED'],
    ['ISSUED', 'REVOKED'],
    ['LOCAL_CONFIGURED', 'REVOKED'],
    ['DATA_PLANE_CONFIRMED', 'REVOKED'],
    ['MANAGEMENT_CONFIRMED', 'REVOKED'],
    ['ACTIVE', 'REVOKED'],
    ['FAILED', 'REVOKED'],
  ];
  const key = (a: string, b: string) => `${a}->${b}`;
  const yes = new Set(allowed.map(([a, b]) => key(a, b)));
  for (const from of STATES)
    for (const to of STATES) {
      const expected = yes.has(key(from, to));
      it(`${expected ? 'allows' : 'refuses'} ${from} -> ${to}`, () =>
        expect(canMove(from, to)).to.equal(expected));
    }

  const paths: [ChannelState, ChannelState, ChannelState[] | undefined][] = [
    ['LOCAL_CONFIGURED', 'ACTIVE', ['DATA_PLANE_CONFIRMED', 'MANAGEMENT_CONFIRMED', 'ACTIVE']],
    ['ISSUED', 'DATA_PLANE_CONFIRMED', ['LOCAL_CONFIGURED', 'DATA_PLANE_CONFIRMED']],
    ['FAILED', 'ACTIVE', ['LOCAL_CONFIGURED', 'DATA_PLANE_CONFIRMED', 'MANAGEMENT_CONFIRMED', 'ACTIVE']],
    ['ACTIVE', 'ISSUED', undefined],
    ['REVOKED', 'ACTIVE', undefined],
    ['MANAGEMENT_CONFIRMED', 'LOCAL_CONFIGURED', undefined],
  ];
  for (const [from, to, steps] of paths)
    it(`walks ${from} to ${to} as ${steps?.join(', ') ?? 'nothing (refused)'}`, () =>
      expect(pathTo(from, to)).to.deep.equal(steps));
});

describe('remote access: the transport resolve chooses', () => {
  const ch = (protocol: 'WIREGUARD' | 'SSTP', everConnected = false, id = protocol): ExistingChannel => ({
    id,
    protocol,
    state: 'ISSUED',
    everConnected,
  });
  const cases: [string, Parameters<typeof chooseTransport>[0], ReturnType<typeof chooseTransport>][] = [
    [
      'v7, new',
      { major: 7, requested: undefined, channels: [], activeChannelId: null },
      { kind: 'create', protocol: 'WIREGUARD', role: 'PRIMARY', reason: 'DEFAULT' },
    ],
    [
      'v6, new',
      { major: 6, requested: undefined, channels: [], activeChannelId: null },
      { kind: 'create', protocol: 'SSTP', role: 'PRIMARY', reason: 'ROUTEROS_V6_NO_WIREGUARD' },
    ],
    [
      'v6, new, SSTP asked',
      { major: 6, requested: 'SSTP', channels: [], activeChannelId: null },
      { kind: 'create', protocol: 'SSTP', role: 'PRIMARY', reason: 'ROUTEROS_V6_NO_WIREGUARD' },
    ],
    [
      'v7, new, SSTP asked',
      { major: 7, requested: 'SSTP', channels: [], activeChannelId: null },
      { kind: 'create', protocol: 'SSTP', role: 'PRIMARY', reason: 'APP_REQUESTED' },
    ],
    [
      'again without protocol',
      { major: 7, requested: undefined, channels: [ch('WIREGUARD')], activeChannelId: 'WIREGUARD' },
      { kind: 'keep', activeChannelId: 'WIREGUARD', reason: 'UNCHANGED' },
    ],
    [
      'SSTP asked, WireGuard never connected',
      { major: 7, requested: 'SSTP', channels: [ch('WIREGUARD')], activeChannelId: 'WIREGUARD' },
      { kind: 'create', protocol: 'SSTP', role: 'FALLBACK', reason: 'WIREGUARD_NEVER_CONNECTED' },
    ],
    [
      'SSTP asked, WireGuard had connected',
      { major: 7, requested: 'SSTP', channels: [ch('WIREGUARD', true)], activeChannelId: 'WIREGUARD' },
      { kind: 'create', protocol: 'SSTP', role: 'FALLBACK', reason: 'APP_REQUESTED' },
    ],
    [
      'SSTP asked again (replay)',
      { major: 7, requested: 'SSTP', channels: [ch('WIREGUARD', true), ch('SSTP')], activeChannelId: 'SSTP' },
      { kind: 'keep', activeChannelId: 'SSTP', reason: 'UNCHANGED' },
    ],
    [
      'SSTP asked, SSTP exists but WireGuard serves',
      {
        major: 7,
        requested: 'SSTP',
        channels: [ch('WIREGUARD', true), ch('SSTP')],
        activeChannelId: 'WIREGUARD',
      },
      { kind: 'switch', activeChannelId: 'SSTP', reason: 'APP_REQUESTED' },
    ],
  ];
  for (const [name, input, expected] of cases)
    it(name, () => expect(chooseTransport(input)).to.deep.equal(expected));

  const versions: [string, number | undefined][] = [
    ['7.19', 7],
    ['7.19.1', 7],
    ['6.49.10 (long-term)', 6],
    ['v7.12', 7],
    ['seven', undefined],
    ['', undefined],
    ['7', undefined],
  ];
  for (const [text, major] of versions)
    it(`reads the major of "${text}" as ${major}`, () => expect(routerOsMajor(text)).to.equal(major));
});

describe('remote access: retiring the previous transport', () => {
  const proven: ProbeFacts = {
    reachable: true,
    dataPlaneConfirmed: true,
    observedTransport: 'SSTP',
    requestedTransport: 'SSTP',
    state: 'CONFIRMED',
    candidateAddress: '10.96.0.3',
    previousAddress: '10.96.0.2',
  };
  const cases: [string, Partial<ProbeFacts>, string | null][] = [
    ['everything proven', {}, null],
    ['no previous channel', { previousAddress: null }, 'NO_PREVIOUS_CHANNEL'],
    ['not reachable', { reachable: false }, 'NOT_REACHABLE'],
    ['reachable without a data plane', { dataPlaneConfirmed: false }, 'DATA_PLANE_NOT_CONFIRMED'],
    ['another protocol observed', { observedTransport: 'WIREGUARD' }, 'OTHER_TRANSPORT_OBSERVED'],
    ['nothing observed', { observedTransport: null }, 'OTHER_TRANSPORT_OBSERVED'],
    ['the old address', { candidateAddress: '10.96.0.2' }, 'SAME_ADDRESS_AS_PREVIOUS'],
    ['PENDING', { state: 'PENDING' }, 'NOT_CONFIRMED'],
    ['FAILED', { state: 'FAILED' }, 'NOT_CONFIRMED'],
  ];
  for (const [name, over, refusal] of cases)
    it(`${refusal === null ? 'allows' : 'refuses'}: ${name}`, () =>
      expect(retireRefusal({ ...proven, ...over })).to.equal(refusal));

  const states: [Parameters<typeof probeState>[0], string][] = [
    [{ reachable: true, dataPlaneConfirmed: true, timedOut: false, failed: false }, 'CONFIRMED'],
    [{ reachable: true, dataPlaneConfirmed: false, timedOut: true, failed: false }, 'PENDING'],
    [{ reachable: false, dataPlaneConfirmed: true, timedOut: true, failed: false }, 'PENDING'],
    [{ reachable: false, dataPlaneConfirmed: false, timedOut: false, failed: true }, 'FAILED'],
  ];
  for (const [input, state] of states)
    it(`probe state ${JSON.stringify(input)} is ${state}`, () => expect(probeState(input)).to.equal(state));
});

describe('remote access: keys, addresses', () => {
  it('makes WireGuard keys of 32 bytes whose public key follows the private one', () => {
    const k = newWireguardKeys();
    for (const v of [k.privateKey, k.publicKey, k.presharedKey])
      expect(Buffer.from(v, 'base64')).to.have.length(32);
    expect(publicKeyOf(k.privateKey)).to.equal(k.publicKey);
    expect(newWireguardKeys().privateKey).to.not.equal(k.privateKey);
  });

  const addresses: [number, string | null][] = [
    [2, '10.96.0.2'],
    [255, '10.96.0.255'],
    [256, '10.96.1.0'],
    [(1 << 20) - 2, '10.111.255.254'],
    [1, null],
    [1 << 20, null],
    [2.5, null],
  ];
  for (const [index, address] of addresses)
    it(`address index ${index} is ${address ?? 'refused'}`, () => {
      if (address === null) expect(() => tunnelAddressOf(index)).to.throw(RangeError);
      else expect(tunnelAddressOf(index)).to.equal(address);
    });
});

describe('remote access: the Linux VPN end', () => {
  const dump = [
    'SERVERPRIV\tSERVERPUB\t51820\toff',
    'PEERA=\tPSK\t198.51.100.7:41000\t10.96.0.2/32\t1795780000\t4200\t3100\t25',
    'PEERB=\t(none)\t(none)\t10.96.0.3/32\t0\t0\t0\toff',
  ].join('\n');
  it('reads a peer of `wg show dump`', () => {
    expect(parseWireguardDump(dump, 'PEERA=')).to.deep.equal({
      protocol: 'WIREGUARD',
      connectedAt: new Date(1795780000 * 1000).toISOString(),
      rxBytes: 4200,
    });
    expect(parseWireguardDump(dump, 'PEERB=')).to.deep.equal({
      protocol: 'WIREGUARD',
      connectedAt: null,
      rxBytes: 0,
    });
    expect(parseWireguardDump(dump, 'NOPE=')).to.deep.equal({
      protocol: 'WIREGUARD',
      connectedAt: null,
      rxBytes: 0,
    });
  });
  it('reads a session of `accel-cmd show sessions`', () => {
    const table = [
      ' username | state | uptime-raw | rx-bytes-raw',
      '----------+-------+-----',
      ' tn-a | active | 60 | 900',
      ' tn-b | start | 0 | 0',
    ].join('\n');
    const now = Date.parse('2026-11-21T08:00:00.000Z');
    expect(parseAccelSessions(table, 'tn-a', now)).to.deep.equal({
      protocol: 'SSTP',
      connectedAt: '2026-11-21T07:59:00.000Z',
      rxBytes: 900,
    });
    expect(parseAccelSessions(table, 'tn-b', now).connectedAt).to.equal(null);
  });
  it('passes the preshared key on stdin, never on the command line', async () => {
    const runs: { file: string; args: readonly string[]; input?: string }[] = [];
    const host = new LinuxVpnHost({
      host: 'vpn.example.net',
      wireguardInterface: 'wg0',
      sstpPort: 443,
      chapSecretsPath: '/nonexistent/chap-secrets',
      now: () => new Date(0),
      exec: async (file, args, input) => {
        runs.push({ file, args, ...(input !== undefined ? { input } : {}) });
        return '';
      },
    });
    await host.addWireguardPeer({
      publicKey: 'PUB=',
      presharedKey: 'PSK-SECRET=',
      tunnelAddress: '10.96.0.9',
    });
    expect(runs).to.deep.equal([
      {
        file: 'wg',
        args: ['set', 'wg0', 'peer', 'PUB=', 'preshared-key', '/dev/stdin', 'allowed-ips', '10.96.0.9/32'],
        input: 'PSK-SECRET=\n',
      },
    ]);
  });
});

describe('remote access: RouterOS capability tables (agent and simulator agree)', () => {
  const rows: [string, boolean, boolean, string | null][] = [
    ['6.49.10', false, false, null],
    ['7.11', true, false, null],
    ['7.12', true, true, null],
    ['7.13.5', true, true, null],
    ['7.14', true, true, '/ip/cloud/back-to-home-users'],
    ['7.17.2', true, true, '/ip/cloud/back-to-home-users'],
    ['7.18beta2', true, true, '/ip/cloud/back-to-home-user'],
    ['7.19', true, true, '/ip/cloud/back-to-home-user'],
  ];
  for (const [version, wireguard, bth, users] of rows)
    it(`${version}: WireGuard ${wireguard}, Back To Home ${bth}, users menu ${users}`, () => {
      const agent = agentCaps(version);
      expect(agent.wireguard).to.equal(wireguard);
      expect(agent.backToHome).to.deep.equal({ available: bth, usersMenu: users });
      if (!version.includes('beta')) {
        const sim = simCaps(version);
        expect(sim.wireguard).to.equal(wireguard);
        expect(sim.backToHome).to.equal(bth);
        expect(sim.backToHomeUsersMenu).to.equal(users);
      }
    });
});
