// Remote access end to end over real sockets: the controller, RouterOS simulators (7.19 arm64 and
// 6.49 mipsbe) whose tunnels reach a fake {vpn_host} end, and the real agent runtime. A router
// resolved by its serial enrols its agent with the bundle's code; a probe makes the agent apply
// the candidate on the router and prove it; SSTP takes over when WireGuard's UDP is blocked, and
// only then is the WireGuard interface removed. Firewall, routes and other addresses stay as they were.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningAgent } from '../../agent/runtime/agent-runtime.js';
import { systemClock } from '../../controller/core/clock.js';
import {
  startRemoteAccess,
  type RemoteAccessTest,
} from '../integration/remote-access/remote-access-fixture.js';
import { eventually } from '../integration/hub/hub-fixture.js';
import { RouterSim } from '../routeros-sim/router-sim.js';
import { forEachDatabase } from '../support/databases.js';
import { startLoopbackAgent } from '../support/loopback-agent.js';

const PASSWORD = 'sim-pass';
const opId = (n: number) => `01930000-0000-7000-8000-${String(n).padStart(12, '0')}`;

forEachDatabase('remote access end to end', (database) => {
  let h: RemoteAccessTest;
  const cleanups: (() => Promise<unknown>)[] = [];
  before(async () => (h = await startRemoteAccess(database, { clock: systemClock, listen: true })));
  after(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
    await h.close();
  });

  /** Resolves a router by serial, then starts its simulator and the real agent with the bundle's code. */
  async function site(serial: string, version: string, architecture: 'arm64' | 'mipsbe') {
    const res = await h.resolve({ routeros_version: version, router_serial: serial, api_mode: 'native' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const bundle = res.body.data;
    const sim = new RouterSim({ serial, version, architecture, password: PASSWORD, vpnPeerEnd: h.vpn });
    await sim.start();
    cleanups.push(() => sim.stop());
    const stateDir = await mkdtemp(join(tmpdir(), 'tn-remote-access-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const agent: RunningAgent = await startLoopbackAgent({
      stateDir,
      controllerUrl: h.baseUrl,
      enrolCode: bundle.enrolment.code,
      router: { port: sim.port, password: PASSWORD },
    });
    cleanups.push(() => agent.stop());
    await eventually(
      () =>
        h.t.request('GET', `/api/v1/clients/allocations/${bundle.allocation_id}`, { token: h.client.token }),
      (r) => r.body.data.link_state === 'CONNECTED' && r.body.data.router.routeros_version !== null,
      15_000,
    );
    return { bundle, sim };
  }

  const untouched = (sim: RouterSim) =>
    JSON.stringify(
      ['/ip/firewall/filter', '/ip/firewall/nat', '/ip/route'].map((m) =>
        sim.state
          .menu(m)
          ?.list()
          .map((r) => r.props),
      ),
    );

  it('7.19: resolve, WireGuard applied by the agent and proven; SSTP takes over when UDP is blocked', async () => {
    const { bundle, sim } = await site('E2E719A', '7.19', 'arm64');
    expect(bundle.active_transport).to.equal('WIREGUARD');
    const before = untouched(sim);
    const wg = bundle.transport_channels[0];
    const first = await h.probe({
      operation_id: opId(1),
      allocation_id: bundle.allocation_id,
      candidate_channel_id: wg.channel_id,
      previous_channel_id: null,
      requested_transport: 'WIREGUARD',
    });
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.data).to.include({ state: 'CONFIRMED', reachable: true, data_plane_confirmed: true });
    const iface = sim.state.table('/interface/wireguard').findBy('name', 'tn-wireguard')!;
    expect(iface.props['public-key']).to.equal(bundle.protocols[0].public_key);
    const peer = sim.state.table('/interface/wireguard/peers').findBy('interface', 'tn-wireguard')!;
    expect(peer.props).to.include({
      'public-key': h.vpn.publicKey,
      'endpoint-address': h.vpn.host,
      'allowed-address': '10.96.0.0/12',
    });
    expect(
      sim.state.table('/ip/address').findBy('address', `${wg.tunnel_address}/32`)?.props.interface,
    ).to.equal('tn-wireguard');

    // The satellite link starts dropping WireGuard's UDP: the app asks SSTP.
    sim.faults.set({ blockWireguardUdp: true });
    const blocked = await h.probe({
      operation_id: opId(4),
      allocation_id: bundle.allocation_id,
      candidate_channel_id: wg.channel_id,
      requested_transport: 'WIREGUARD',
    });
    // Nothing passes through WireGuard any more: its management path is not proven.
    expect(blocked.body.data).to.include({ reachable: false, state: 'PENDING' });
    const sstp = (await h.resolve({ routeros_version: '7.19', router_serial: 'E2E719A', protocol: 'SSTP' }))
      .body.data;
    expect(sstp.active_transport_reason).to.equal('APP_REQUESTED');
    const cand = sstp.transport_channels.find((c: { protocol: string }) => c.protocol === 'SSTP');
    // Prohibitions on the real path: asking WireGuard while SSTP is what answers, and offering the
    // blocked WireGuard as the candidate, retire nothing; both interfaces stay on the router.
    const otherProtocol = await h.probe({
      operation_id: opId(5),
      allocation_id: bundle.allocation_id,
      candidate_channel_id: cand.channel_id,
      previous_channel_id: wg.channel_id,
      requested_transport: 'WIREGUARD',
    });
    expect(otherProtocol.body.data, JSON.stringify(otherProtocol.body)).to.include({
      data_plane_confirmed: true,
      observed_transport: 'SSTP',
      retire_previous_allowed: false,
      retire_refusal: 'OTHER_TRANSPORT_OBSERVED',
      previous_retired: false,
    });
    const backwards = await h.probe({
      operation_id: opId(6),
      allocation_id: bundle.allocation_id,
      candidate_channel_id: wg.channel_id,
      previous_channel_id: cand.channel_id,
      requested_transport: 'WIREGUARD',
    });
    // Its handshake is younger than WireGuard's 180 s session, but no ping passes any more.
    expect(backwards.body.data, JSON.stringify(backwards.body)).to.include({
      reachable: false,
      state: 'PENDING',
      retire_refusal: 'NOT_REACHABLE',
      retire_previous_allowed: false,
      previous_retired: false,
    });
    expect(sim.state.table('/interface/wireguard').findBy('name', 'tn-wireguard')).to.not.equal(undefined);
    expect(sim.state.table('/interface/sstp-client').findBy('name', 'tn-sstp')).to.not.equal(undefined);
    const probe = await h.probe({
      operation_id: opId(2),
      allocation_id: bundle.allocation_id,
      candidate_channel_id: cand.channel_id,
      previous_channel_id: wg.channel_id,
      requested_transport: 'SSTP',
    });
    expect(probe.body.data, JSON.stringify(probe.body)).to.include({
      state: 'CONFIRMED',
      observed_transport: 'SSTP',
      retire_previous_allowed: true,
      previous_retired: true,
    });
    expect(sim.state.table('/interface/sstp-client').findBy('name', 'tn-sstp')?.props.running).to.equal(
      'true',
    );
    expect(sim.state.table('/interface/wireguard').list()).to.deep.equal([]);
    expect(sim.state.table('/ip/address').findBy('address', `${wg.tunnel_address}/32`)).to.equal(undefined);
    expect(untouched(sim)).to.equal(before);
    const after = (await h.resolve({ routeros_version: '7.19', router_serial: 'E2E719A' })).body.data;
    expect(after.active_transport).to.equal('SSTP');
    expect(after.transport_channels.map((c: { state: string }) => c.state)).to.deep.equal(['ACTIVE']);
  });

  it('6.49: SSTP only, applied and proven; a WireGuard apply is refused by the agent', async () => {
    const { bundle, sim } = await site('E2E649B', '6.49', 'mipsbe');
    expect(bundle.active_transport).to.equal('SSTP');
    expect(bundle.active_transport_reason).to.equal('ROUTEROS_V6_NO_WIREGUARD');
    const ch = bundle.transport_channels[0];
    const res = await h.probe({
      operation_id: opId(3),
      allocation_id: bundle.allocation_id,
      candidate_channel_id: ch.channel_id,
      requested_transport: 'SSTP',
    });
    expect(res.body.data, JSON.stringify(res.body)).to.include({
      state: 'CONFIRMED',
      reachable: true,
      data_plane_confirmed: true,
    });
    expect(sim.state.menu('/interface/wireguard')).to.equal(undefined);
    const client = sim.state.table('/interface/sstp-client').findBy('name', 'tn-sstp')!;
    expect(client.props).to.include({
      'connect-to': h.vpn.host,
      user: bundle.protocols[0].username,
      running: 'true',
    });
    // Were WireGuard ever sent to this router, its agent would refuse it from its capability table.
    const key = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE=';
    const outcome = await h.t.controller.services.runner.run(
      { clientId: h.client.id, allocationId: bundle.allocation_id },
      'vpn.wireguard.apply',
      {
        interface: 'tn-wireguard',
        private_key: key,
        preshared_key: key,
        server_public_key: key,
        endpoint_host: h.vpn.host,
        endpoint_port: 51820,
        address: '10.96.0.200/32',
        allowed_address: '10.96.0.0/12',
        keepalive_seconds: 25,
      },
      10_000,
    );
    expect(outcome.kind).to.equal('refused');
    expect(outcome.kind === 'refused' && outcome.fault.message).to.match(/WireGuard needs RouterOS 7/);
  });
});
