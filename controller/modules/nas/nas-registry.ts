// The NAS rows and their roles. Invariants, kept by the database where it can and by these short
// transactions elsewhere:
// - at most one live PRIMARY per client (unique partial index `nas_one_primary`);
// - at most one live NAS per router slot (`nas_one_per_allocation`);
// - whenever a client has an ACTIVE NAS, its PRIMARY is ACTIVE (activation, promotion and deletion
//   of one client run one after another: row locks on PostgreSQL, the single writer on SQLite).
import { randomBytes } from 'node:crypto';
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { AllocationView } from '../allocations/index.js';
import { relayIdentity, type DbNasDirectory } from './db-nas-directory.js';
import { nasAddressTaken, nasNotFound } from './errors.js';
import { shortnameFor } from './nas-view.js';
import * as q from './queries.js';
import type { NasApplyMode, NasTable } from './tables.js';

const ATTEMPTS = 3;

export class NasRegistry {
  constructor(
    private readonly db: Db,
    private readonly caps: DialectCapabilities,
    private readonly clock: Clock,
    readonly directory: DbNasDirectory,
  ) {}

  /**
   * One transaction over the client's NAS rows; retried when a unique index refused a write
   * (a concurrent writer got there first: the next attempt sees its row).
   */
  async withClientLock<T>(clientId: string, work: (trx: Db) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction().execute(async (trx) => {
          if (this.caps.rowLocks) await q.lockClientRows(trx, clientId);
          return work(trx);
        });
      } catch (err) {
        if (attempt >= ATTEMPTS || !isUniqueViolation(err)) throw err;
      }
    }
  }

  /**
   * The router's live NAS, or a new PENDING one: PRIMARY when the client has no live PRIMARY,
   * else MEMBER. Runs in the caller's transaction (the deployment lock's).
   */
  async resolve(
    trx: Db,
    clientId: string,
    allocation: AllocationView,
    applyMode: NasApplyMode,
    /** The nasname asked for; undefined keeps an existing NAS's (a new one is relayed). */
    nasname?: string,
  ): Promise<{ nas: NasTable; created: boolean }> {
    const wanted = nasname ?? relayIdentity(allocation.id);
    if (nasname !== undefined) {
      const holder = await q.lookupByNasname(trx, nasname);
      if (holder && holder.allocation_id !== allocation.id) throw nasAddressTaken(nasname);
    }
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const existing = await q.findLiveForAllocation(trx, clientId, allocation.id);
      if (existing) {
        if (nasname === undefined || existing.nasname === nasname) return { nas: existing, created: false };
        // Enrolled again with the other transport: same NAS and secret, another RADIUS identity.
        await q.setNasname(trx, clientId, existing.id, nasname, iso(this.clock.now()));
        return { nas: { ...existing, nasname }, created: false };
      }
      const primary = await q.findPrimary(trx, clientId);
      const id = newId();
      const now = iso(this.clock.now());
      // Both unique indexes answer "do nothing": the loop then reads what the other writer made.
      const inserted = await q.insertNas(trx, {
        id,
        client_id: clientId,
        allocation_id: allocation.id,
        nasname: wanted,
        shortname: shortnameFor(allocation, id),
        secret: randomBytes(20).toString('hex'),
        role: primary ? 'MEMBER' : 'PRIMARY',
        status: 'PENDING',
        apply_mode: applyMode,
        router_serial: allocation.router.serial ?? '',
        model: allocation.router.model,
        created_at: now,
        updated_at: now,
        activated_at: null,
        verified_at: null,
        deleted_at: null,
      });
      if (inserted) return { nas: inserted, created: true };
    }
    throw new Error(`could not create a NAS for allocation ${allocation.id}`);
  }

  /**
   * PENDING → ACTIVE. The first ACTIVE NAS of a client becomes its PRIMARY (a PENDING primary
   * steps down to MEMBER); later ones keep their role. Answers the NAS as it ends up, or
   * undefined when it was deleted meanwhile.
   */
  async activate(clientId: string, nasId: string): Promise<NasTable | undefined> {
    const nas = await this.withClientLock(clientId, async (trx) => {
      const row = await q.findLive(trx, clientId, nasId);
      if (!row || row.status === 'ACTIVE') return row;
      const now = iso(this.clock.now());
      const primary = await q.findPrimary(trx, clientId);
      let role = row.role;
      if (!primary || primary.status !== 'ACTIVE') {
        if (primary && primary.id !== row.id) await q.setRole(trx, clientId, primary.id, 'MEMBER', now);
        role = 'PRIMARY';
      }
      await q.markActive(trx, clientId, row.id, role, now);
      return q.findLive(trx, clientId, row.id);
    });
    this.directory.invalidate();
    return nas;
  }

  /** Makes an ACTIVE NAS the PRIMARY; the previous one becomes a MEMBER, in the same transaction. */
  async promote(
    clientId: string,
    nasId: string,
  ): Promise<{ previousPrimaryId: string | null; changed: boolean }> {
    const outcome = await this.withClientLock(clientId, async (trx) => {
      const row = await q.findLive(trx, clientId, nasId);
      if (!row) throw nasNotFound();
      if (row.status !== 'ACTIVE') {
        throw new AppError('NAS_NOT_ACTIVE', 'This NAS is not verified yet; verify it before promoting it', {
          details: { nas_id: row.id, status: row.status },
        });
      }
      const primary = await q.findPrimary(trx, clientId);
      if (primary?.id === row.id) return { previousPrimaryId: row.id, changed: false };
      const now = iso(this.clock.now());
      if (primary) await q.setRole(trx, clientId, primary.id, 'MEMBER', now);
      await q.setRole(trx, clientId, row.id, 'PRIMARY', now);
      return { previousPrimaryId: primary?.id ?? null, changed: true };
    });
    this.directory.invalidate();
    return outcome;
  }

  /**
   * Soft-deletes a NAS. The ACTIVE PRIMARY cannot go while ACTIVE members remain: 409 naming them,
   * so the client promotes one first.
   */
  async remove(
    clientId: string,
    nasId: string,
    guard: (trx: Db, nas: NasTable) => Promise<void>,
  ): Promise<NasTable> {
    const removed = await this.withClientLock(clientId, async (trx) => {
      const row = await q.findLive(trx, clientId, nasId);
      if (!row) throw nasNotFound();
      await guard(trx, row);
      if (row.role === 'PRIMARY' && row.status === 'ACTIVE') {
        const candidates = await q.activeMemberIds(trx, clientId);
        if (candidates.length > 0) {
          throw new AppError(
            'PRIMARY_NAS_REASSIGN_REQUIRED',
            'This NAS is the PRIMARY and active members remain: promote one of them first',
            { details: { primary_nas_id: row.id, candidate_nas_ids: candidates } },
          );
        }
      }
      await q.softDelete(trx, clientId, row.id, iso(this.clock.now()));
      return row;
    });
    this.directory.invalidate();
    return removed;
  }
}
