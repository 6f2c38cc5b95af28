// Management probes: prove a candidate channel on every count (data plane seen at the {vpn_host}
// end and on the router, the router answering from its own management address) before the
// previous transport may be retired. Idempotent by operation id; a bounded wait answers PENDING.
import { isUuid } from '../../core/ids.js';
import { createHash } from 'node:crypto';
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { AgentCommandRunner, AgentTarget } from '../../hub/index.js';
import type { AllocationsService } from '../allocations/index.js';
import { CandidateProof, NOT_PROVEN, type ProbeOptions } from './candidate-proof.js';
import { walkChannel } from './channel-moves.js';
import { probeState, retireRefusal } from './probe-verdict.js';
import * as q from './queries.js';
import type { ProbeBody } from './schemas.js';
import type { SecretBox } from '../../core/secret-box.js';
import type { RemoteAccessAttemptsTable, RemoteAccessChannelsTable } from './tables.js';
import type { VpnHost } from './vpn-host.js';

export { DEFAULT_PROBE_OPTIONS, type ProbeOptions } from './candidate-proof.js';

export interface ProbeDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  allocations: AllocationsService;
  runner: AgentCommandRunner;
  vpnHost: VpnHost;
  box: SecretBox;
  options: ProbeOptions;
}

export class ProbeService {
  readonly #proof: CandidateProof;

  constructor(private readonly deps: ProbeDeps) {
    this.#proof = new CandidateProof(deps);
  }

  async probe(clientId: string, body: ProbeBody) {
    const { db, allocations } = this.deps;
    const candidateId = body.candidate_channel_id;
    if (candidateId === undefined || candidateId === null || candidateId === '')
      throw new AppError(
        'VPN_CANDIDATE_CHANNEL_REQUIRED',
        'candidate_channel_id is required: take it from transport_channels[].channel_id',
      );
    const allocation = await allocations.get(clientId, body.allocation_id);
    const request = canonical(body);
    const stored = await q.findAttempt(db, clientId, body.operation_id);
    if (stored && stored.request_sha256 !== request)
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This operation_id was used with another request');
    if (stored && stored.state !== 'PENDING') return attemptView(stored);
    const candidate =
      typeof candidateId === 'string' && isUuid(candidateId)
        ? await q.findChannel(db, clientId, allocation.id, candidateId)
        : undefined;
    if (!candidate)
      throw new AppError(
        'VPN_CANDIDATE_CHANNEL_NOT_FOUND',
        'candidate_channel_id is not a transport channel of this allocation',
        {
          details: { field: 'candidate_channel_id' },
        },
      );
    const previous = body.previous_channel_id
      ? await q.findChannel(db, clientId, allocation.id, body.previous_channel_id)
      : undefined;
    if (body.previous_channel_id && (!previous || previous.id === candidate.id))
      throw new AppError(
        'VPN_CANDIDATE_CHANNEL_NOT_FOUND',
        'previous_channel_id is not another transport channel of this allocation',
        {
          details: { field: 'previous_channel_id' },
        },
      );
    if (candidate.state === 'REVOKED')
      throw new AppError(
        'CHANNEL_TRANSITION_REFUSED',
        'This channel was revoked; resolve again for a new one',
      );
    const now = iso(this.deps.clock.now());
    if (!stored)
      await q.insertAttempt(db, {
        client_id: clientId,
        operation_id: body.operation_id,
        allocation_id: allocation.id,
        request_sha256: request,
        candidate_channel_id: candidate.id,
        previous_channel_id: previous?.id ?? null,
        requested_transport: body.requested_transport,
        state: 'PENDING',
        reachable: 0,
        data_plane_confirmed: 0,
        observed_transport: null,
        retire_previous_allowed: 0,
        refusal: null,
        previous_retired: 0,
        created_at: now,
        updated_at: now,
      });
    const target = { clientId, allocationId: allocation.id };
    const result =
      allocation.link_state === 'CONNECTED'
        ? await this.#proof.prove(target, candidate, previous)
        : NOT_PROVEN;
    const state = probeState({ ...result, timedOut: !result.failed });
    const refusal = retireRefusal({
      reachable: result.reachable,
      dataPlaneConfirmed: result.dataPlaneConfirmed,
      observedTransport: result.observed,
      requestedTransport: body.requested_transport,
      state,
      candidateAddress: candidate.tunnel_address,
      previousAddress: previous?.tunnel_address ?? null,
    });
    await this.#record(candidate, result, allocation.link_state === 'CONNECTED');
    if (state === 'CONFIRMED') await this.#activate(target, candidate);
    const retired = refusal === null && previous ? await this.#retire(target, candidate, previous) : false;
    await q.updateAttempt(db, clientId, body.operation_id, {
      state,
      reachable: result.reachable ? 1 : 0,
      data_plane_confirmed: result.dataPlaneConfirmed ? 1 : 0,
      observed_transport: result.observed,
      retire_previous_allowed: refusal === null ? 1 : 0,
      refusal,
      previous_retired: retired ? 1 : 0,
      updated_at: iso(this.deps.clock.now()),
    });
    return attemptView((await q.findAttempt(db, clientId, body.operation_id))!);
  }

  async attempt(clientId: string, operationId: string) {
    const row = await q.findAttempt(this.deps.db, clientId, operationId);
    if (!row)
      throw new AppError('TRANSPORT_ATTEMPT_NOT_FOUND', 'No transport attempt with this operation id');
    return attemptView(row);
  }

  /** What this probe proved, on the channel: its times, and DATA_PLANE_CONFIRMED when only that is proven. */
  async #record(
    c: RemoteAccessChannelsTable,
    r: { dataPlaneConfirmed: boolean },
    probed: boolean,
  ): Promise<void> {
    const now = iso(this.deps.clock.now());
    const times = {
      ...(probed ? { last_management_probe_at: now } : {}),
      ...(r.dataPlaneConfirmed ? { last_data_plane_confirmed_at: now } : {}),
    };
    if (Object.keys(times).length > 0) await q.touchChannel(this.deps.db, c.id, times);
    const fresh = (await q.findChannel(this.deps.db, c.client_id, c.allocation_id, c.id))!;
    if (r.dataPlaneConfirmed && fresh.state === 'LOCAL_CONFIGURED')
      await walkChannel(this.deps.db, this.deps.clock, fresh, 'DATA_PLANE_CONFIRMED');
  }

  async #activate(target: AgentTarget, c: RemoteAccessChannelsTable): Promise<void> {
    const now = iso(this.deps.clock.now());
    await walkChannel(this.deps.db, this.deps.clock, c, 'ACTIVE');
    await q.updateSlot(this.deps.db, target.clientId, target.allocationId, {
      active_channel_id: c.id,
      updated_at: now,
    });
  }

  /** Only after an allowed probe: the old interface off the router, then its peer off the VPN end. */
  async #retire(
    target: AgentTarget,
    candidate: RemoteAccessChannelsTable,
    previous: RemoteAccessChannelsTable,
  ) {
    const { runner, vpnHost, options, logger } = this.deps;
    if (previous.state === 'REVOKED') return true;
    if (previous.interface_name !== candidate.interface_name) {
      const removed = await runner.run(
        target,
        'vpn.transport.remove',
        { protocol: previous.protocol, interface: previous.interface_name },
        options.commandWaitMs,
      );
      if (removed.kind !== 'done') {
        logger.warn(
          { allocationId: target.allocationId, outcome: removed.kind },
          'previous transport not removed yet',
        );
        return false;
      }
    }
    if (previous.profile_id !== candidate.profile_id) {
      const key = await this.#proof.peerKey(target, previous);
      if (previous.protocol === 'WIREGUARD') await vpnHost.removeWireguardPeer(key);
      else await vpnHost.removeSstpAccount(key);
    }
    // The profile (keys, password) stays stored: a later switch back needs no new provisioning.
    await walkChannel(this.deps.db, this.deps.clock, previous, 'REVOKED');
    return true;
  }
}

function canonical(b: ProbeBody): string {
  const text = JSON.stringify([
    b.allocation_id,
    typeof b.candidate_channel_id === 'string'
      ? b.candidate_channel_id
      : JSON.stringify(b.candidate_channel_id),
    b.previous_channel_id ?? null,
    b.requested_transport,
  ]);
  return createHash('sha256').update(text).digest('hex');
}

export function attemptView(r: RemoteAccessAttemptsTable) {
  return {
    operation_id: r.operation_id,
    allocation_id: r.allocation_id,
    candidate_channel_id: r.candidate_channel_id,
    previous_channel_id: r.previous_channel_id,
    requested_transport: r.requested_transport,
    reachable: Number(r.reachable) === 1,
    data_plane_confirmed: Number(r.data_plane_confirmed) === 1,
    observed_transport: r.observed_transport,
    state: r.state,
    retire_previous_allowed: Number(r.retire_previous_allowed) === 1,
    retire_refusal: r.refusal,
    previous_retired: Number(r.previous_retired) === 1,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
