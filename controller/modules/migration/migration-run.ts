// One migration run, steps in their fixed order (docs/api/migration.md): inventory, backup
// (repatriated and verified, else stop), import into RADIUS (proved by a paginated server
// inventory), configuration (the router asks RADIUS; confirmation armed), removal of the local
// accounts (only with the three proofs and `retirer_local`; verified by counting before and after),
// then the run ends ARMEMENT and the watch job waits for the first real authentication.
//
// Steps 1 to 4 replay without damage: a new backup, an idempotent import, an idempotent script.
// Removal only ever removes accounts that the server inventory found in RADIUS, never
// `default-trial`, and a replay after an interruption only finds fewer accounts to remove.
import { AppError } from '../../core/app-error.js';
import { iso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { errorFields } from '../../logger.js';
import type { AllocationView } from '../allocations/index.js';
import {
  decodeAccounts,
  encodeAccounts,
  exportAccounts,
  type BackupAccounts,
  type ExportedUser,
} from './backup-accounts.js';
import type { MigrationDeps } from './deps.js';
import { runFailed, type MigrationErrorCode } from './errors.js';
import { readInventory } from './inventory.js';
import { notifyStep, type Notice } from './notices.js';
import * as q from './queries.js';
import { callRouter, outcomeReason } from './router-calls.js';
import { judgeBatch, removalDecision, SPARED_USER, type Proof } from './rules.js';
import type { RunLease } from './run-lease.js';
import type { MigrationStatut, RadiusMigrationsTable } from './tables.js';

export type EtapeName = 'SAUVEGARDE' | 'IMPORT' | 'CONFIG' | 'RETRAIT_LOCAL' | 'ARMEMENT';

export interface EtapeView {
  etape: EtapeName;
  etat: 'OK' | 'REFUSE';
  comptes?: number;
  importes?: number;
  retires?: number;
  /** Why a step was refused (a missing proof, `RETRAIT_NON_DEMANDE`, the router's message). */
  raison?: string;
  /** The error code of a step that stopped the run. */
  code?: string;
  octets?: number;
  sha256?: string;
  complet?: boolean;
  conflits?: number;
  restes?: number;
  nas_id?: string;
}

export interface MigrationAnswer {
  success: true;
  allocation_id: string;
  nas_id: string | null;
  statut: MigrationStatut;
  etapes: EtapeView[];
  /** Local accounts removed from the router by this migration (earlier runs included), by count. */
  retires: number;
  /** Accounts found in RADIUS by the server inventory. */
  importes: number;
}

// Attempts of one removal batch that keeps making progress before it is called stalled.
const REMOVE_ATTEMPTS = 3;
// Backups kept per router (the newest is the one a return restores).
const BACKUPS_KEPT = 3;
// Codes per page of the server inventory.
const INVENTORY_PAGE = 500;
const BACKUP_FILE = 'ticketnet-migration';

export class MigrationRun {
  readonly #etapes: EtapeView[] = [];
  readonly #runId = newId();
  readonly #target: { clientId: string; allocationId: string };
  readonly #proofs = new Set<Proof>();
  #nasId: string | null;
  #importes = 0;
  /** Accounts removed since the cycle began, earlier runs included: the answer's `retires`. */
  #retires: number;
  #backupId: string | null;
  #switchedAt: string | null;

  constructor(
    private readonly deps: MigrationDeps,
    private readonly clientId: string,
    private readonly allocation: AllocationView,
    private readonly lease: RunLease,
    private readonly retirerLocal: boolean,
  ) {
    this.#target = { clientId, allocationId: allocation.id };
    const prev = lease.row;
    // After a return the router holds its accounts again: a new migration is a new cycle.
    const newCycle = prev.statut === 'REVENU_EN_LOCAL';
    this.#nasId = prev.nas_id;
    this.#retires = newCycle ? 0 : prev.retires;
    this.#backupId = newCycle ? null : prev.backup_id;
    this.#switchedAt = newCycle ? null : prev.switched_at;
  }

  async execute(): Promise<MigrationAnswer> {
    const now = iso(this.deps.clock.now());
    await this.#save({
      run_id: this.#runId,
      statut: 'EN_COURS',
      retirer_local: this.retirerLocal ? 1 : 0,
      etapes: '[]',
      error_code: null,
      started_at: now,
      backup_id: this.#backupId,
      retires: this.#retires,
      switched_at: this.#switchedAt,
      ...(this.lease.row.statut === 'REVENU_EN_LOCAL'
        ? { armed_at: null, confirmed_at: null, first_user: null, first_auth_at: null, returned_at: null }
        : {}),
    });

    await this.#inventory();
    const accounts = await this.#backup();
    const confirmed = await this.#import(accounts);
    await this.#configure();
    await this.#removeLocal(confirmed);
    return this.#arm(null);
  }

  // ---- step 1 -------------------------------------------------------------------------------

  async #inventory(): Promise<void> {
    const read = await readInventory(this.deps, this.clientId, this.allocation);
    if (read.view.nas_id) this.#nasId = read.view.nas_id;
    if (!read.view.autorise) {
      await this.#save({ statut: this.#restingStatut(), error_code: 'MIGRATION_NOT_ALLOWED' });
      await this.#notify({ step: 'ECHEC', code: read.view.motif ?? 'MIGRATION_NOT_ALLOWED' });
      throw new AppError('MIGRATION_NOT_ALLOWED', read.view.motif_texte ?? 'Migration refused', {
        details: { motif: read.view.motif },
        extra: { inventaire: read.view },
      });
    }
    // The inventory answered through the agent: the router is reachable.
    this.#proofs.add('ROUTEUR_JOIGNABLE');
  }

  // ---- step 2 -------------------------------------------------------------------------------

  async #backup(): Promise<BackupAccounts> {
    const { deps } = this;
    const saved = await callRouter(deps, this.#target, 'backup.save', { name: BACKUP_FILE });
    if (saved.kind === 'refused' && saved.fault.code === 'BACKUP_EMPTY') {
      return this.#stop(
        'SAUVEGARDE',
        'MIGRATION_BACKUP_EMPTY',
        `The router wrote an empty backup: ${saved.fault.message}`,
      );
    }
    if (saved.kind !== 'done') {
      return this.#stop('SAUVEGARDE', 'MIGRATION_BACKUP_FAILED', `Backup failed: ${outcomeReason(saved)}`);
    }
    // The catalogue checked size and SHA-256 against the bytes that arrived; zero bytes is no backup.
    if (saved.output.size === 0) {
      return this.#stop('SAUVEGARDE', 'MIGRATION_BACKUP_EMPTY', 'The router wrote an empty backup file');
    }
    const exported = await exportAccounts(deps, this.#target);
    if (exported.kind !== 'done') {
      return this.#stop(
        'SAUVEGARDE',
        'MIGRATION_BACKUP_FAILED',
        `Hotspot accounts could not be exported: ${outcomeReason(exported)}`,
      );
    }
    const fresh = exported.output;
    // Within a cycle the backup only grows: an earlier run of this migration may have removed
    // accounts (even if it died before counting them), and the return must find them here.
    const previous = await this.#previousAccounts();
    if (previous === null) {
      return this.#stop(
        'SAUVEGARDE',
        'MIGRATION_BACKUP_FAILED',
        'The previous backup of this migration is unreadable',
      );
    }
    const accounts = previous ? mergeAccounts(fresh, previous) : fresh;
    const encoded = encodeAccounts(accounts);
    const id = newId();
    await q.insertBackup(deps.db, {
      id,
      client_id: this.clientId,
      allocation_id: this.allocation.id,
      router_serial: this.allocation.router.serial,
      created_at: iso(deps.clock.now()),
      file_name: saved.output.file_name,
      file_size: saved.output.size,
      file_sha256: saved.output.sha256,
      file_base64: saved.output.content_base64,
      accounts_json: encoded.json,
      accounts_sha256: encoded.sha256,
      accounts_count: accounts.users.length,
      profiles_count: accounts.profiles.length,
    });
    this.#backupId = id;
    await q.pruneBackups(deps.db, this.allocation.id, BACKUPS_KEPT);
    this.#proofs.add('SAUVEGARDE_CONFIRMEE');
    this.#etapes.push({
      etape: 'SAUVEGARDE',
      etat: 'OK',
      comptes: fresh.users.length,
      octets: saved.output.size,
      sha256: saved.output.sha256,
    });
    await this.#save({ backup_id: id, comptes: fresh.users.length });
    await this.#notify({ step: 'SAUVEGARDE', comptes: fresh.users.length, octets: saved.output.size });
    return accounts;
  }

  /** This cycle's last backup: undefined when there is none, null when it cannot be read. */
  async #previousAccounts(): Promise<BackupAccounts | undefined | null> {
    if (this.#backupId === null) return undefined;
    const row = await q.findBackup(this.deps.db, this.#backupId);
    if (!row) return undefined;
    return decodeAccounts(row.accounts_json, row.accounts_sha256) ?? null;
  }

  // ---- step 3 -------------------------------------------------------------------------------

  /** Imports the accounts and walks the server inventory; answers the codes RADIUS holds as ours. */
  async #import(accounts: BackupAccounts): Promise<Set<string>> {
    const { profiles, ticketImport } = this.deps;
    const users = accounts.users.filter((u) => u.name !== SPARED_USER);
    let conflicts: Set<string>;
    try {
      await profiles.upsertProfilesFromRouter(
        this.clientId,
        accounts.profiles.map((p) => ({ name: p.name, rate_limit: p.rate_limit ?? null })),
      );
      const imported = await ticketImport.importFromRouter(this.clientId, { users });
      conflicts = new Set(imported.conflicts.map((c) => c.code));
    } catch (err) {
      this.deps.logger.error(
        { ...errorFields(err, this.deps.logger), allocationId: this.allocation.id },
        'migration import failed',
      );
      return this.#stop('IMPORT', 'MIGRATION_IMPORT_FAILED', 'The ticket store refused the import');
    }

    // The proof: every exported account read back from the store, page by page, to the end.
    const codes = users.map((u) => u.name);
    // in the inventory's order once, so that no page sorts them again
    const ordered = [...new Set(codes)].sort();
    const confirmed = new Set<string>();
    let missing = 0;
    let cursor: string | null = null;
    do {
      const page = await ticketImport.inventoryPage(this.clientId, {
        codes: ordered,
        cursor,
        limit: INVENTORY_PAGE,
      });
      for (const item of page.items) if (!conflicts.has(item.code)) confirmed.add(item.code);
      missing += page.missing_count;
      cursor = page.next_cursor;
    } while (cursor !== null);
    const complete = missing === 0 && conflicts.size === 0 && confirmed.size === codes.length;
    if (complete) this.#proofs.add('IMPORT_RADIUS_CONFIRME');

    this.#importes = confirmed.size;
    this.#etapes.push({
      etape: 'IMPORT',
      etat: 'OK',
      comptes: codes.length,
      importes: confirmed.size,
      complet: complete,
      conflits: conflicts.size,
    });
    await this.#save({ importes: confirmed.size });
    await this.#notify({
      step: 'IMPORT',
      importes: confirmed.size,
      comptes: codes.length,
      complet: complete,
    });
    return confirmed;
  }

  // ---- step 4 -------------------------------------------------------------------------------

  async #configure(): Promise<void> {
    try {
      const nas = await this.deps.nas.deployForMigration(this.clientId, this.allocation);
      this.#nasId = nas.id;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return this.#stop('CONFIG', 'MIGRATION_DEPLOY_FAILED', `RADIUS configuration refused: ${err.message}`);
    }
    this.#switchedAt ??= iso(this.deps.clock.now());
    this.#etapes.push({ etape: 'CONFIG', etat: 'OK', nas_id: this.#nasId });
    await this.#save({ nas_id: this.#nasId, switched_at: this.#switchedAt });
  }

  // ---- step 5 -------------------------------------------------------------------------------

  async #removeLocal(confirmed: ReadonlySet<string>): Promise<void> {
    const decision = removalDecision(this.retirerLocal, this.#proofs);
    if (!decision.allowed) {
      const retires = this.#retires;
      this.#etapes.push({ etape: 'RETRAIT_LOCAL', etat: 'REFUSE', raison: decision.raison, retires });
      await this.#notify({ step: 'RETRAIT_LOCAL', retires, raison: decision.raison, restes: null });
      return;
    }
    // Only what RADIUS holds leaves the router: the batches name the confirmed accounts, and an
    // account created after the backup is in none. The router is not listed first: each batch says
    // which of its names are already gone (`absent`), so the names cross the link once, not twice.
    // Sorted, a batch compresses better (codes that share their first letters sit together).
    const toRemove = [...confirmed].filter((n) => n !== SPARED_USER).sort();
    const counted = await callRouter(this.deps, this.#target, 'hotspot.users.count', {});
    if (counted.kind !== 'done') {
      return this.#removalStopped('MIGRATION_COUNT_FAILED', `Count impossible: ${outcomeReason(counted)}`);
    }

    // Imported accounts already gone: an earlier run removed them (it may have died before counting).
    const removal = { gone: 0, removed: 0, base: this.#retires };
    for (let i = 0; i < toRemove.length; i += this.deps.options.removeBatch) {
      await this.#removeBatch(toRemove.slice(i, i + this.deps.options.removeBatch), removal);
    }
    // The whole removal by count too: a batch sent again after an interruption finds absent the
    // accounts its first attempt removed, which its own counts cannot show.
    const final = await callRouter(this.deps, this.#target, 'hotspot.users.count', {});
    if (final.kind !== 'done') {
      return this.#removalStopped(
        'MIGRATION_REMOVE_UNVERIFIED',
        `Removal done but the router cannot be counted after it: ${outcomeReason(final)}`,
      );
    }
    this.#retires = removal.gone + Math.max(0, counted.output.count - final.output.count);
    await this.#save({ retires: this.#retires });
    // What stays: the accounts RADIUS does not hold. Listed after the removal, so the names that
    // cross the link are only those few.
    const left = await callRouter(this.deps, this.#target, 'hotspot.users.names', {});
    const restes = left.kind === 'done' ? left.output.names.filter((n) => !confirmed.has(n)).length : null;
    this.#etapes.push({
      etape: 'RETRAIT_LOCAL',
      etat: 'OK',
      retires: this.#retires,
      ...(restes === null ? {} : { restes }),
    });
    await this.#notify({ step: 'RETRAIT_LOCAL', retires: this.#retires, raison: null, restes });
  }

  /**
   * One batch, sent again while it makes progress. `removal.gone` gets the names its first answer
   * found absent (removed before this run), `removal.removed` what the counts show it removed; the
   * row's `retires` is written after each answer, so it says what the router lost even if this run
   * dies now.
   */
  async #removeBatch(
    names: string[],
    removal: { gone: number; removed: number; base: number },
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const out = await callRouter(this.deps, this.#target, 'hotspot.users.remove', { names });
      if (out.kind !== 'done') {
        // A lost router connection or an agent restart may pass: the batch is sent again.
        if (out.kind === 'refused' && out.fault.retryable && attempt < REMOVE_ATTEMPTS) continue;
        return this.#removalStopped('MIGRATION_REMOVE_STALLED', `Removal refused: ${outcomeReason(out)}`);
      }
      const verdict = judgeBatch(out.output);
      if (verdict.kind === 'COUNT_FAILED') {
        return this.#removalStopped(
          'MIGRATION_COUNT_FAILED',
          `Count impossible before removal: ${out.output.count_error ?? 'no count'}`,
        );
      }
      // Only a first attempt's absent names were gone before this run: a later attempt also finds
      // absent those the interrupted one removed, which the counts show already.
      if (attempt === 1) removal.gone += out.output.absent;
      if (verdict.kind === 'UNVERIFIED') {
        return this.#removalStopped(
          'MIGRATION_REMOVE_UNVERIFIED',
          `Removal sent but the router cannot be counted after it: ${out.output.count_error ?? 'no count'}`,
        );
      }
      removal.removed += verdict.removed;
      // Never below what an earlier run of the cycle already wrote.
      const retires = Math.max(removal.base, removal.gone + removal.removed);
      if (retires !== this.#retires) {
        this.#retires = retires;
        await this.#save({ retires });
      }
      if (verdict.removed === out.output.requested) return;
      if (verdict.removed === 0 || attempt >= REMOVE_ATTEMPTS) {
        return this.#removalStopped(
          'MIGRATION_REMOVE_STALLED',
          `The router stopped removing: ${out.output.requested - verdict.removed} of ${out.output.requested} accounts of a batch remain`,
        );
      }
    }
  }

  /** A removal that stopped: accounts not removed stay; the router keeps RADIUS and is armed. */
  async #removalStopped(code: MigrationErrorCode, message: string): Promise<never> {
    const retires = this.#retires;
    this.#etapes.push({ etape: 'RETRAIT_LOCAL', etat: 'REFUSE', code, raison: message, retires });
    await this.#notify(
      retires === 0
        ? { step: 'ECHEC', code }
        : { step: 'RETRAIT_LOCAL', retires, raison: code, restes: null },
    );
    const answer = await this.#arm(code);
    throw runFailed(code, message, { ...answer });
  }

  // ---- step 6 (armed; the watch job confirms) ------------------------------------------------

  async #arm(errorCode: MigrationErrorCode | null): Promise<MigrationAnswer> {
    const now = iso(this.deps.clock.now());
    this.#etapes.push({ etape: 'ARMEMENT', etat: 'OK' });
    await this.#save({
      statut: 'ARMEMENT',
      armed_at: now,
      confirmed_at: null,
      first_user: null,
      first_auth_at: null,
      error_code: errorCode,
    });
    await this.#notify({ step: 'ARMEMENT', importes: this.#importes, retires: this.#retires });
    return this.#answer('ARMEMENT');
  }

  // ---- plumbing -----------------------------------------------------------------------------

  /** A stop before removal: nothing was removed by this run; the router stays as it was. */
  async #stop(etape: EtapeName, code: MigrationErrorCode, message: string): Promise<never> {
    this.#etapes.push({ etape, etat: 'REFUSE', code, raison: message });
    const statut = this.#restingStatut();
    await this.#save({ statut, error_code: code });
    await this.#notify({ step: 'ECHEC', code });
    this.deps.logger.warn({ allocationId: this.allocation.id, etape, code, message }, 'migration stopped');
    throw runFailed(code, message, { ...this.#answer(statut) });
  }

  /** Where a stopped run leaves the router: armed if an earlier run configured it, else failed. */
  #restingStatut(): MigrationStatut {
    return this.#switchedAt !== null ? 'ARMEMENT' : 'ECHEC';
  }

  #answer(statut: MigrationStatut): MigrationAnswer {
    return {
      success: true,
      allocation_id: this.allocation.id,
      nas_id: this.#nasId,
      statut,
      etapes: [...this.#etapes],
      retires: this.#retires,
      importes: this.#importes,
    };
  }

  async #save(changes: Partial<RadiusMigrationsTable>): Promise<void> {
    await this.lease.save({
      ...changes,
      etapes: JSON.stringify(this.#etapes),
      updated_at: iso(this.deps.clock.now()),
    });
  }

  #notify(notice: Notice): Promise<void> {
    return notifyStep(
      this.deps.notifications,
      this.deps.logger,
      {
        clientId: this.clientId,
        allocationId: this.allocation.id,
        runId: this.#runId,
        router: routerName(this.allocation),
      },
      notice,
    );
  }
}

export const routerName = (a: AllocationView): string =>
  a.router.identity ?? a.router.serial ?? a.label ?? a.id;

/** The fresh export, plus the accounts of the cycle's backup that earlier runs removed already. */
function mergeAccounts(fresh: BackupAccounts, previous: BackupAccounts): BackupAccounts {
  const users = new Map<string, ExportedUser>(previous.users.map((u) => [u.name, u]));
  for (const u of fresh.users) users.set(u.name, u);
  const profiles = new Map(previous.profiles.map((p) => [p.name, p]));
  for (const p of fresh.profiles) profiles.set(p.name, p);
  return { profiles: [...profiles.values()], users: [...users.values()] };
}
