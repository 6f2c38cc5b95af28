// Server-mode enrolment: the controller provisions the router through its agent under the router's
// deployment lock. Order: take the lock and create (or reuse) the NAS in one short transaction;
// then, with no transaction open, (1) synchronise the hotspot profiles, (2) apply the provisioning
// script; then record the outcome: ACTIVE and lock released, or the NAS this deployment created
// removed and the lock released. A deployment that dies half way is cancelled when its lock
// expires (the sweep job, or the next enrolment that takes the lock over).
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import type { AgentCommandRunner, AgentOutcome } from '../../hub/index.js';
import { errorFields, type Logger } from '../../logger.js';
import type { AllocationView } from '../allocations/index.js';
import type { ProfilesService } from '../tickets/index.js';
import {
  bridgeUnavailable,
  deploymentInProgress,
  directRadiusOff,
  provisionError,
  type DeployStep,
} from './errors.js';
import type { NasRegistry } from './nas-registry.js';
import { provisioningScript, SCRIPT_NAME } from './provisioning-script.js';
import type { RadiusTargets } from './radius-targets.js';
import * as q from './queries.js';
import type { NasTable } from './tables.js';

/** A deployment lock lasts 180 s at most (`docs/api/nas.md`). */
export const DEPLOYMENT_LOCK_MS = 180_000;
// Room left before the lock expires for recording the outcome.
const LOCK_MARGIN_MS = 5_000;

export interface DeploymentDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  runner: AgentCommandRunner;
  profiles: ProfilesService;
  registry: NasRegistry;
  targets: RadiusTargets;
  /** Longest wait for each agent command. */
  bridgeTimeoutMs: number;
}

export interface DeploymentResult {
  nas: NasTable;
  deployment: { status: 'COMPLETED'; started_at: string; finished_at: string };
  /** The hotspot synchronisation of an enrolment; null when the caller synchronised already (migration). */
  sync: {
    local_accounts: number;
    profiles: number;
    profiles_inserted: number;
    profiles_updated: number;
  } | null;
}

export interface DeploymentOptions {
  /** Read the router's hotspot profiles into the ticket store first (default true). */
  syncHotspot?: boolean;
  /** The NAS's RADIUS identity (`NasRegistry.resolve`); undefined keeps the NAS's own. */
  nasname?: string | undefined;
}

interface Held {
  nas: NasTable;
  created: boolean;
  token: string;
  startedAt: string;
  expiresAt: number;
}

export class NasDeployment {
  constructor(private readonly deps: DeploymentDeps) {}

  async run(
    clientId: string,
    allocation: AllocationView,
    options: DeploymentOptions = {},
  ): Promise<DeploymentResult> {
    const held = await this.#acquire(clientId, allocation, options.nasname);
    try {
      return await this.#deploy(clientId, allocation, held, options.syncHotspot ?? true);
    } catch (err) {
      // Refusals have undone their work already; anything unexpected (a database error) must
      // not leave the lock and a half-made NAS behind for 180 s either.
      if (!(err instanceof AppError)) {
        // A release that fails too leaves the lock to expire (cancelExpired); the first error is
        // the answer, but this one is logged so the stuck lock can be explained.
        await this.#release(clientId, allocation.id, held.token, held.created ? held.nas.id : null).catch(
          (releaseErr: unknown) =>
            this.deps.logger.error(
              { ...errorFields(releaseErr, this.deps.logger), clientId, allocationId: allocation.id },
              'NAS deployment lock not released',
            ),
        );
      }
      throw err;
    }
  }

  async #deploy(
    clientId: string,
    allocation: AllocationView,
    held: Held,
    syncHotspot: boolean,
  ): Promise<DeploymentResult> {
    const routerTarget = { clientId, allocationId: allocation.id };
    const { runner, registry } = this.deps;
    const sync = syncHotspot ? await this.#sync(clientId, allocation.id, held) : null;

    const target = this.deps.targets.forNas(held.nas, allocation);
    if (!target) {
      // Direct RADIUS stopped listening since the enrolment checked it: nothing sent yet.
      await this.#release(clientId, allocation.id, held.token, held.created ? held.nas.id : null);
      throw directRadiusOff();
    }
    const script = provisioningScript(held.nas, target);
    const applied = await runner.run(
      routerTarget,
      'router.script.apply',
      { name: SCRIPT_NAME, source: script },
      this.#waitMs(held),
    );
    if (applied.kind !== 'done') return this.#fail(clientId, allocation.id, held, 'APPLY', applied);

    const active = await registry.activate(clientId, held.nas.id);
    await q.releaseLock(this.deps.db, allocation.id, held.token);
    if (!active) {
      // The lock expired under this deployment and it was cancelled (NAS removed) meanwhile.
      throw bridgeUnavailable(held.nas.id, 'APPLY', DEPLOYMENT_LOCK_MS);
    }
    return {
      nas: active,
      deployment: {
        status: 'COMPLETED',
        started_at: held.startedAt,
        finished_at: iso(this.deps.clock.now()),
      },
      sync,
    };
  }

  async #sync(
    clientId: string,
    allocationId: string,
    held: Held,
  ): Promise<NonNullable<DeploymentResult['sync']>> {
    const exported = await this.deps.runner.run(
      { clientId, allocationId },
      'hotspot.users.export',
      { include_profiles: true },
      this.#waitMs(held),
    );
    if (exported.kind !== 'done') return this.#fail(clientId, allocationId, held, 'SYNC', exported);
    const profiles = exported.output.profiles ?? [];
    const upserted = await this.deps.profiles.upsertProfilesFromRouter(
      clientId,
      profiles.map((p) => ({ name: p.name, rate_limit: p.rate_limit ?? null })),
    );
    return {
      local_accounts: exported.output.count,
      profiles: profiles.length,
      profiles_inserted: upserted.inserted,
      profiles_updated: upserted.updated,
    };
  }

  /**
   * Cancels the deployments whose lock expired (their request died): the NAS a deployment created
   * and never activated is removed, and the lock row goes. Scheduler job NAS_DEPLOYMENT_SWEEP.
   */
  async cancelExpired(now: Date): Promise<{ cancelled: number }> {
    const { db, logger } = this.deps;
    let cancelled = 0;
    for (const lock of await q.expiredLocks(db, iso(now))) {
      const nasId = lock.nas_id && lock.nas_created === 1 ? lock.nas_id : null;
      // Guarded by the token: a lock taken over since the read is not this one any more.
      if (!(await this.#release(lock.client_id, lock.allocation_id, lock.token, nasId))) continue;
      logger.warn(
        { allocationId: lock.allocation_id, nasId: lock.nas_id },
        'expired NAS deployment cancelled',
      );
      cancelled++;
    }
    return { cancelled };
  }

  async #acquire(clientId: string, allocation: AllocationView, nasname?: string): Promise<Held> {
    // A lock released between the failed take and the read of its holder: the other deployment
    // just ended, so this one may go; a few rounds at most.
    for (let round = 0; round < 3; round++) {
      const held = await this.#tryAcquire(clientId, allocation, nasname);
      if (held) return held;
      const lock = await q.findLock(this.deps.db, clientId, allocation.id);
      const nas = lock?.nas_id ? await q.findLive(this.deps.db, clientId, lock.nas_id) : undefined;
      if (lock && nas) throw deploymentInProgress(lock, nas);
    }
    throw new Error(`deployment lock of allocation ${allocation.id} neither free nor readable`);
  }

  async #tryAcquire(
    clientId: string,
    allocation: AllocationView,
    nasname: string | undefined,
  ): Promise<Held | undefined> {
    const { db, clock, registry } = this.deps;
    const token = newId();
    const now = clock.now();
    const startedAt = iso(now);
    const expiresAt = now.getTime() + DEPLOYMENT_LOCK_MS;
    const held = await db.transaction().execute(async (trx) => {
      const lock = await q.acquireLock(
        trx,
        {
          allocation_id: allocation.id,
          client_id: clientId,
          nas_id: null,
          nas_created: 0,
          token,
          status: 'DEPLOYING',
          started_at: startedAt,
          expires_at: iso(new Date(expiresAt)),
        },
        startedAt,
      );
      if (!lock) return undefined;
      const { nas, created } = await registry.resolve(trx, clientId, allocation, 'server', nasname);
      // Taking over a cancelled deployment inherits what it created, so a failure here undoes it.
      const owns = created || (lock.nas_id === nas.id && lock.nas_created === 1);
      await q.setLockNas(trx, allocation.id, token, nas.id, owns);
      return { nas, created: owns, token, startedAt, expiresAt };
    });
    registry.directory.invalidate();
    return held;
  }

  /**
   * Releases the lock `token` holds and, in the same transaction, removes the NAS it created if
   * that is still PENDING; nothing when the lock is another's now. True when it was released.
   */
  async #release(clientId: string, allocationId: string, token: string, createdNasId: string | null) {
    const { db, clock, registry } = this.deps;
    const released = await db.transaction().execute(async (trx) => {
      if (!(await q.releaseLock(trx, allocationId, token))) return false;
      if (createdNasId) await q.softDelete(trx, clientId, createdNasId, iso(clock.now()), true);
      return true;
    });
    registry.directory.invalidate();
    return released;
  }

  #waitMs(held: Held): number {
    const left = held.expiresAt - LOCK_MARGIN_MS - this.deps.clock.now().getTime();
    return Math.max(100, Math.min(this.deps.bridgeTimeoutMs, left));
  }

  async #fail(
    clientId: string,
    allocationId: string,
    held: Held,
    step: DeployStep,
    outcome: Exclude<AgentOutcome<unknown>, { kind: 'done' }>,
  ): Promise<never> {
    const { logger } = this.deps;
    // Only while the lock is still this deployment's: after a takeover the new holder owns the NAS.
    await this.#release(clientId, allocationId, held.token, held.created ? held.nas.id : null);
    logger.warn(
      { clientId, allocationId, nasId: held.nas.id, step, outcome: outcome.kind },
      'NAS deployment failed',
    );
    if (outcome.kind === 'timeout') throw bridgeUnavailable(held.nas.id, step, outcome.waitedMs);
    // The router's message never holds the secret, but a script echo could: strip it to be sure.
    const message = outcome.fault.message.split(held.nas.secret).join('***');
    throw provisionError(held.nas.id, step, { code: outcome.fault.code, message });
  }
}
