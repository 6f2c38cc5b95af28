// The proof of one candidate channel: applied on the router when it is not there yet, its data
// plane looked for at the {vpn_host} end (polled up to a bounded wait) and on the router, and the
// router answering from its own management address. Bounded waits end in "not proven", never hang.
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { AgentCommandRunner, AgentTarget } from '../../hub/index.js';
import { walkChannel } from './channel-moves.js';
import { openProfile } from './channel-provisioning.js';
import * as q from './queries.js';
import type { SecretBox } from '../../core/secret-box.js';
import type { RemoteAccessChannelsTable, TransportProtocol } from './tables.js';
import { TUNNEL_NETWORK } from './tunnel-addresses.js';
import type { VpnHost } from './vpn-host.js';

export interface ProbeOptions {
  /** Longest wait for the agent to apply a candidate, then for each probe command. */
  commandWaitMs: number;
  /** Longest wait for the data plane to show at the VPN end before answering PENDING. */
  dataPlaneWaitMs: number;
  /** Pause between two looks at the VPN end. */
  pollMs: number;
  /** A handshake older than this is not a live data plane (WireGuard renews every 2 minutes). */
  handshakeFreshMs: number;
}

export const DEFAULT_PROBE_OPTIONS: ProbeOptions = {
  commandWaitMs: 20_000,
  dataPlaneWaitMs: 15_000,
  pollMs: 1000,
  handshakeFreshMs: 180_000,
};

export interface ProofDeps {
  db: Db;
  clock: Clock;
  runner: AgentCommandRunner;
  vpnHost: VpnHost;
  box: SecretBox;
  options: ProbeOptions;
}

export interface Proof {
  reachable: boolean;
  dataPlaneConfirmed: boolean;
  observed: TransportProtocol | null;
  /** The router refused the candidate's configuration. */
  failed: boolean;
}

export const NOT_PROVEN: Proof = {
  reachable: false,
  dataPlaneConfirmed: false,
  observed: null,
  failed: false,
};

export class CandidateProof {
  constructor(private readonly deps: ProofDeps) {}

  /** Applies the candidate when it is not yet on the router, then proves it. */
  async prove(
    target: AgentTarget,
    candidate: RemoteAccessChannelsTable,
    previous?: RemoteAccessChannelsTable,
  ): Promise<Proof> {
    const { runner, options } = this.deps;
    if (candidate.state === 'ISSUED' || candidate.state === 'FAILED') {
      const applied = await this.#apply(target, candidate);
      if (applied.kind === 'refused') {
        await walkChannel(this.deps.db, this.deps.clock, candidate, 'FAILED');
        return { ...NOT_PROVEN, failed: true };
      }
      if (applied.kind === 'timeout') return NOT_PROVEN;
      await walkChannel(this.deps.db, this.deps.clock, candidate, 'LOCAL_CONFIGURED');
    }
    const key = await this.peerKey(target, candidate);
    const deadline = performance.now() + options.dataPlaneWaitMs;
    let serverSees = await this.#serverSees(candidate.protocol, key);
    while (!serverSees && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, options.pollMs));
      serverSees = await this.#serverSees(candidate.protocol, key);
    }
    const probed = await runner.run(
      target,
      'vpn.probe',
      {
        protocol: candidate.protocol,
        interface: candidate.interface_name,
        server_address: candidate.server_address,
        router_address: candidate.tunnel_address,
      },
      options.commandWaitMs,
    );
    if (probed.kind !== 'done') return { ...NOT_PROVEN, observed: serverSees ? candidate.protocol : null };
    const o = probed.output;
    // A WireGuard handshake older than a session's life proves nothing (the router keeps printing it).
    const fresh =
      o.connected_seconds_ago !== null &&
      (candidate.protocol !== 'WIREGUARD' || o.connected_seconds_ago * 1000 <= options.handshakeFreshMs);
    const routerSees = o.running && fresh && o.rx_bytes > 0 && o.tx_bytes > 0;
    const dataPlaneConfirmed = serverSees && routerSees;
    const reachable = o.address_present && o.ping_received > 0;
    let observed: TransportProtocol | null = dataPlaneConfirmed ? candidate.protocol : null;
    if (!observed && previous) {
      // What answers is the old path: say so, so nobody retires it on this proof.
      const prevKey = await this.peerKey(target, previous);
      if (await this.#serverSees(previous.protocol, prevKey)) observed = previous.protocol;
    }
    return { reachable, dataPlaneConfirmed, observed, failed: false };
  }

  async #apply(target: AgentTarget, c: RemoteAccessChannelsTable) {
    const { runner, box, db, options } = this.deps;
    const profile = (await q.findProfile(db, target.clientId, c.profile_id))!;
    const secrets = openProfile(box, profile);
    if (c.protocol === 'WIREGUARD') {
      const endpoints = await this.deps.vpnHost.endpoints();
      return runner.run(
        target,
        'vpn.wireguard.apply',
        {
          interface: c.interface_name,
          private_key: secrets.privateKey!,
          preshared_key: secrets.presharedKey!,
          server_public_key: endpoints.wireguard.publicKey,
          endpoint_host: c.endpoint_host,
          endpoint_port: Number(c.endpoint_port),
          address: `${c.tunnel_address}/32`,
          allowed_address: TUNNEL_NETWORK,
          keepalive_seconds: 25,
        },
        options.commandWaitMs,
      );
    }
    return runner.run(
      target,
      'vpn.sstp.apply',
      {
        interface: c.interface_name,
        connect_to: c.endpoint_host,
        port: Number(c.endpoint_port),
        user: profile.username!,
        password: secrets.password!,
      },
      options.commandWaitMs,
    );
  }

  async peerKey(target: AgentTarget, c: RemoteAccessChannelsTable): Promise<string> {
    const profile = (await q.findProfile(this.deps.db, target.clientId, c.profile_id))!;
    return (c.protocol === 'WIREGUARD' ? profile.public_key : profile.username)!;
  }

  async #serverSees(protocol: TransportProtocol, key: string): Promise<boolean> {
    const status = await this.deps.vpnHost.status(protocol, key);
    if (status.connectedAt === null || status.rxBytes <= 0) return false;
    // An SSTP session is live while the server lists it; a WireGuard peer only while it renews handshakes.
    if (protocol === 'SSTP') return true;
    const age = this.deps.clock.now().getTime() - Date.parse(status.connectedAt);
    return age <= this.deps.options.handshakeFreshMs;
  }
}
