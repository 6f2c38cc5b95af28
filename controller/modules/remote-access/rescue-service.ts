// The rescue relay: MikroTik's Back To Home under `/ip/cloud`, reached through the allocation's
// agent. Enabling answers at once (ENABLING, or UNAVAILABLE_ON_MODEL for a model or version
// without it: not a failure); the profile is read by a job no earlier than 25 s after, since the
// relay's profile is incomplete for a while, and kept sealed. Shown on the slot, never as a channel.
import nacl from 'tweetnacl';
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { AllocationsService } from '../allocations/index.js';
import * as q from './queries.js';
import type { SecretBox } from '../../core/secret-box.js';
import { emptySlot } from './empty-slot.js';
import { sealContexts } from './seal-contexts.js';

/** The relay's profile is read no earlier than this after enabling (at 6 s it is still incomplete). */
export const RESCUE_READ_AFTER_MS = 25_000;
/** Name of our per-user relay entry (7.14+). */
export const RESCUE_USER = 'ticketnet-rescue';

export type RescueState = 'UNAVAILABLE_ON_MODEL' | 'ENABLING' | 'READY' | 'FAILED';

/** What the services that run agent commands on a router's access need (rescue relay, router login). */
export interface RescueDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  allocations: AllocationsService;
  runner: AgentCommandRunner;
  box: SecretBox;
  commandWaitMs: number;
}

export class RescueService {
  constructor(private readonly deps: RescueDeps) {}

  async enable(clientId: string, allocationId: string) {
    const { db, clock, runner, allocations } = this.deps;
    const allocation = await allocations.get(clientId, allocationId);
    const out = await runner.runForRequest(
      { clientId, allocationId },
      'vpn.rescue.enable',
      { user: RESCUE_USER },
      this.deps.commandWaitMs,
    );
    const now = iso(clock.now());
    const state: RescueState = out.state === 'UNAVAILABLE_ON_MODEL' ? 'UNAVAILABLE_ON_MODEL' : 'ENABLING';
    await q.upsertSlot(
      db,
      emptySlot(clientId, allocation.id, allocation.router.routeros_version ?? 'unknown', now),
    );
    await q.updateSlot(db, clientId, allocationId, {
      rescue_state: state,
      rescue_updated_at: now,
      updated_at: now,
    });
    return {
      allocation_id: allocationId,
      state,
      ...(out.reason ? { reason: out.reason } : {}),
      read_not_before:
        state === 'ENABLING' ? iso(new Date(clock.now().getTime() + RESCUE_READ_AFTER_MS)) : null,
    };
  }

  async status(clientId: string, allocationId: string) {
    await this.deps.allocations.get(clientId, allocationId);
    const slot = await q.findSlot(this.deps.db, clientId, allocationId);
    return {
      allocation_id: allocationId,
      state: (slot?.rescue_state ?? null) as RescueState | null,
      profile_stored: Boolean(slot?.rescue_profile_sealed),
      updated_at: slot?.rescue_updated_at ?? null,
    };
  }

  /** The job: every relay enabled at least 25 s ago is read; a complete profile is sealed and kept. */
  async readDue(now: Date): Promise<void> {
    const due = await q.listRescuesDue(this.deps.db, iso(new Date(now.getTime() - RESCUE_READ_AFTER_MS)));
    for (const slot of due)
      await this.#read(slot.client_id, slot.allocation_id).catch((err: unknown) => {
        this.deps.logger.warn(
          { allocationId: slot.allocation_id, err: (err as Error).message },
          'rescue relay not read',
        );
      });
  }

  async #read(clientId: string, allocationId: string): Promise<void> {
    const { db, clock, runner, box } = this.deps;
    // A one-time key: the profile (it holds a private key) crosses the link sealed to it.
    const pair = nacl.box.keyPair();
    const outcome = await runner.run(
      { clientId, allocationId },
      'vpn.rescue.read',
      { user: RESCUE_USER, seal_to: Buffer.from(pair.publicKey).toString('base64') },
      this.deps.commandWaitMs,
    );
    const now = iso(clock.now());
    if (outcome.kind === 'timeout') return;
    if (outcome.kind === 'refused') {
      await q.updateSlot(db, clientId, allocationId, {
        rescue_state: 'FAILED',
        rescue_updated_at: now,
        updated_at: now,
      });
      return;
    }
    const o = outcome.output;
    if (o.state === 'UNAVAILABLE_ON_MODEL') {
      await q.updateSlot(db, clientId, allocationId, {
        rescue_state: 'UNAVAILABLE_ON_MODEL',
        rescue_updated_at: now,
        updated_at: now,
      });
      return;
    }
    if (o.state !== 'READY' || !o.sealed_profile) return; // still coming up: the next run reads again
    const s = o.sealed_profile;
    const plain = nacl.box.open(
      Buffer.from(s.box, 'base64'),
      Buffer.from(s.nonce, 'base64'),
      Buffer.from(s.ephemeral_public_key, 'base64'),
      pair.secretKey,
    );
    if (!plain) throw new AppError('INTERNAL_ERROR', 'the rescue profile did not open');
    const profile = JSON.stringify({
      config: Buffer.from(plain).toString('utf8'),
      dns_name: o.dns_name,
      port: o.port,
    });
    await q.updateSlot(db, clientId, allocationId, {
      rescue_state: 'READY',
      rescue_profile_sealed: box.seal(profile, sealContexts.rescue(clientId, allocationId)),
      rescue_updated_at: now,
      updated_at: now,
    });
  }
}
