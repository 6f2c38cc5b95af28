// One run (migration or return) per router at a time, across requests and controller instances:
// a lease on the router's migration row, renewed while the run lives. A controller that dies mid
// run stops renewing; the next run may start once the lease has lapsed and replays from the
// router's real state.
import { AppError } from '../../core/app-error.js';
import { iso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { errorFields } from '../../logger.js';
import type { MigrationDeps } from './deps.js';
import { migrationInProgress } from './errors.js';
import * as q from './queries.js';
import type { RadiusMigrationsTable } from './tables.js';

export interface RunLease {
  token: string;
  /** The row as the run found it (before its own changes). */
  row: RadiusMigrationsTable;
  /**
   * Writes the run's progress; a run whose lease lapsed (another run took the router) is stopped
   * here, before it sends anything more to the router.
   */
  save(changes: Parameters<typeof q.updateMigration>[3]): Promise<void>;
  release(): Promise<void>;
}

export async function takeRun(
  deps: MigrationDeps,
  clientId: string,
  allocationId: string,
): Promise<RunLease> {
  const { db, clock, options } = deps;
  const now = clock.now();
  await q.insertMigrationIfNew(db, {
    allocation_id: allocationId,
    client_id: clientId,
    nas_id: null,
    statut: 'EN_COURS',
    run_id: newId(),
    retirer_local: 0,
    backup_id: null,
    comptes: null,
    importes: 0,
    retires: 0,
    etapes: '[]',
    error_code: null,
    started_at: iso(now),
    updated_at: iso(now),
    switched_at: null,
    armed_at: null,
    confirmed_at: null,
    first_user: null,
    first_auth_at: null,
    returned_at: null,
    run_token: null,
    run_until: null,
  });
  const token = newId();
  const until = () => iso(new Date(clock.now().getTime() + options.leaseMs));
  if (!(await q.takeLease(db, allocationId, token, until(), iso(now)))) throw migrationInProgress();
  const row = await q.findMigration(db, allocationId);
  if (!row) throw new Error(`migration row of ${allocationId} vanished under its lease`);
  const timer = setInterval(
    () => {
      q.renewLease(db, allocationId, token, until()).catch((err: unknown) =>
        deps.logger.warn({ ...errorFields(err, deps.logger), allocationId }, 'migration lease not renewed'),
      );
    },
    Math.max(1000, Math.floor(options.leaseMs / 3)),
  );
  timer.unref();
  return {
    token,
    row,
    save: async (changes) => {
      if (!(await q.updateMigration(db, allocationId, token, changes))) {
        throw new AppError('MIGRATION_IN_PROGRESS', 'This run lost the router to another run and stopped');
      }
    },
    release: async () => {
      clearInterval(timer);
      await q.releaseLease(db, allocationId, token);
    },
  };
}
