// The migration module's API (administrators): the read-only inventory, a migration run, the
// return to local accounts, the router's migration state, and the watch job. Routers are reached
// only through their agent; tickets, NAS and notifications through their modules' services.
import { AppError } from '../../core/app-error.js';
import { iso } from '../../core/clock.js';
import type { MigrationDeps } from './deps.js';
import { runFailed } from './errors.js';
import { readInventory, type InventoryView } from './inventory.js';
import { MigrationRun, type EtapeView, type MigrationAnswer } from './migration-run.js';
import * as q from './queries.js';
import { ReturnRun, type ReturnAnswer } from './return-run.js';
import { takeRun } from './run-lease.js';
import type { MigrationStatut, RadiusMigrationsTable } from './tables.js';
import { watchArmed } from './watch.js';

/** A router's migration as an administrator reads it. */
export interface MigrationState {
  allocation_id: string;
  nas_id: string | null;
  statut: MigrationStatut;
  retirer_local: boolean;
  comptes: number | null;
  importes: number;
  retires: number;
  etapes: EtapeView[];
  code: string | null;
  started_at: string;
  switched_at: string | null;
  armed_at: string | null;
  confirmed_at: string | null;
  premiere_connexion: { utilisateur: string; at: string } | null;
  returned_at: string | null;
  en_cours: boolean;
}

export class MigrationService {
  constructor(private readonly deps: MigrationDeps) {}

  async inventory(allocationId: string): Promise<InventoryView> {
    const { clientId, allocation } = await this.deps.allocations.getWithOwner(allocationId);
    return (await readInventory(this.deps, clientId, allocation)).view;
  }

  async migrate(allocationId: string, retirerLocal: boolean): Promise<MigrationAnswer> {
    const { clientId, allocation } = await this.deps.allocations.getWithOwner(allocationId);
    const lease = await takeRun(this.deps, clientId, allocationId);
    try {
      return await new MigrationRun(this.deps, clientId, allocation, lease, retirerLocal).execute();
    } finally {
      await lease.release();
    }
  }

  async returnToLocal(allocationId: string, cutRadius: boolean): Promise<ReturnAnswer> {
    const { clientId, allocation } = await this.deps.allocations.getWithOwner(allocationId);
    // Backups are taken by migrations only: a router never migrated has none to restore.
    if (!(await q.findMigration(this.deps.db, allocationId))) {
      throw runFailed('RESTORE_NO_BACKUP', 'No account backup for this router', {
        statut: null,
        comptes_restaures: 0,
        sauvegarde_datee_du: null,
        ecart_avec_radius: { connu: false, ecart: null, avertissement: null },
        etapes: [{ etape: 'LECTURE_SAUVEGARDE', etat: 'ECHEC', code: 'RESTORE_NO_BACKUP' }],
      });
    }
    const lease = await takeRun(this.deps, clientId, allocationId);
    try {
      return await new ReturnRun(this.deps, clientId, allocation, lease, cutRadius).execute();
    } finally {
      await lease.release();
    }
  }

  /** Whether the client's migration is under way: a router of it running or armed (not yet ended). */
  inProgressFor(clientId: string): Promise<boolean> {
    return q.anyInProgress(this.deps.db, clientId);
  }

  async state(allocationId: string): Promise<MigrationState> {
    await this.deps.allocations.getWithOwner(allocationId);
    const row = await q.findMigration(this.deps.db, allocationId);
    if (!row) {
      throw new AppError('MIGRATION_NOT_FOUND', 'This router has never been migrated');
    }
    return stateView(row, this.deps.clock.now());
  }

  /**
   * Confirms an armed migration by hand (RADIUS_READY_AUTO_CONFIRM_ENABLED off): only once the
   * watch job has seen a real authentication through the router.
   */
  async confirm(allocationId: string): Promise<MigrationState> {
    const state = await this.state(allocationId);
    if (state.statut !== 'ARMEMENT' || state.premiere_connexion === null) {
      throw new AppError(
        'MIGRATION_NOT_CONFIRMABLE',
        'Only an armed migration whose router has had a real authentication can be confirmed',
      );
    }
    const now = iso(this.deps.clock.now());
    await q.confirmArmed(this.deps.db, allocationId, { confirmed_at: now, updated_at: now });
    return this.state(allocationId);
  }

  /** Confirms the armed migrations a first real authentication went through (the watch job). */
  watchArmed(now: Date): Promise<{ seen: number; confirmed: number }> {
    return watchArmed(this.deps, now);
  }
}

function stateView(row: RadiusMigrationsTable, now: Date): MigrationState {
  return {
    allocation_id: row.allocation_id,
    nas_id: row.nas_id,
    statut: row.statut,
    retirer_local: row.retirer_local === 1,
    comptes: row.comptes,
    importes: row.importes,
    retires: row.retires,
    etapes: JSON.parse(row.etapes) as EtapeView[],
    code: row.error_code,
    started_at: row.started_at,
    switched_at: row.switched_at,
    armed_at: row.armed_at,
    confirmed_at: row.confirmed_at,
    premiere_connexion:
      row.first_user !== null && row.first_auth_at !== null
        ? { utilisateur: row.first_user, at: row.first_auth_at }
        : null,
    returned_at: row.returned_at,
    en_cours: row.run_until !== null && Date.parse(row.run_until) > now.getTime(),
  };
}
