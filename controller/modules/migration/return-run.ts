// The return to local accounts (docs/api/migration.md), steps in this order: LECTURE_SAUVEGARDE,
// PROFILS, COMPTES (batches of 40, idempotent), VERIFICATION (by count), RADIUS_COUPE last and only
// when every account is back. The binary backup file is never restored; the `/radius` entry stays.
import { HOTSPOT_USERS_RESTORE_BATCH } from '../../../protocol/index.js';
import { iso } from '../../core/clock.js';
import type { AllocationView } from '../allocations/index.js';
import { decodeAccounts, type BackupAccounts } from './backup-accounts.js';
import type { MigrationDeps } from './deps.js';
import { runFailed, type ReturnErrorCode } from './errors.js';
import * as q from './queries.js';
import { callRouter, outcomeReason, runWindowed, waitFor } from './router-calls.js';
import { SPARED_USER } from './rules.js';
import type { RunLease } from './run-lease.js';
import type { MigrationStatut, RadiusMigrationBackupsTable } from './tables.js';

/** Accounts per restore command (40), as the catalogue bounds it. */
const RESTORE_BATCH = HOTSPOT_USERS_RESTORE_BATCH;
const PROFILE_BATCH = 500;
// Restore commands queued on the agent at once (they are idempotent, so their order is free).
const RESTORE_WINDOW = 8;

export type ReturnEtapeName = 'LECTURE_SAUVEGARDE' | 'PROFILS' | 'COMPTES' | 'VERIFICATION' | 'RADIUS_COUPE';

export interface ReturnEtapeView {
  etape: ReturnEtapeName;
  etat: 'OK' | 'ECHEC' | 'NON_DEMANDE';
  comptes?: number;
  profils?: number;
  attendus?: number;
  presents?: number;
  raison?: string;
  code?: string;
}

export interface Ecart {
  /** The switch date is known, so the tickets sold since can be counted. */
  connu: boolean;
  /** Tickets created in RADIUS since the switch that the backup does not hold; null when unknown. */
  ecart: number | null;
  avertissement: string | null;
}

export interface ReturnAnswer {
  success: true;
  statut: MigrationStatut;
  comptes_restaures: number;
  /** When the restored backup was taken; null when there is none. */
  sauvegarde_datee_du: string | null;
  ecart_avec_radius: Ecart;
  etapes: ReturnEtapeView[];
}

export class ReturnRun {
  readonly #etapes: ReturnEtapeView[] = [];
  readonly #target: { clientId: string; allocationId: string };
  #restored = 0;
  #backupDate: string | null = null;
  #ecart: Ecart = { connu: false, ecart: null, avertissement: null };

  constructor(
    private readonly deps: MigrationDeps,
    private readonly clientId: string,
    private readonly allocation: AllocationView,
    private readonly lease: RunLease,
    private readonly couperRadius: boolean,
  ) {
    this.#target = { clientId, allocationId: allocation.id };
  }

  async execute(): Promise<ReturnAnswer> {
    const { backup, accounts } = await this.#readBackup();
    const users = accounts.users.filter((u) => u.name !== SPARED_USER);
    this.#ecart = await this.#ecartWithRadius(new Set(users.map((u) => u.name)));
    if (this.allocation.link_state !== 'CONNECTED') {
      return this.#fail(
        'PROFILS',
        'RESTORE_USERS_FAILED',
        "The router's agent link is down: nothing restored",
      );
    }
    await this.#profiles(accounts);
    await this.#accounts(users);
    await this.#verify(users.map((u) => u.name));
    await this.#cut();
    const now = iso(this.deps.clock.now());
    await this.lease.save({
      statut: 'REVENU_EN_LOCAL',
      returned_at: now,
      updated_at: now,
      error_code: null,
    });
    this.deps.logger.info(
      { allocationId: this.allocation.id, restored: this.#restored, backupId: backup.id },
      'router returned to local accounts',
    );
    return this.#answer('REVENU_EN_LOCAL');
  }

  async #readBackup(): Promise<{ backup: RadiusMigrationBackupsTable; accounts: BackupAccounts }> {
    const { db } = this.deps;
    const row = this.lease.row;
    const backup =
      (row.backup_id ? await q.findBackup(db, row.backup_id) : undefined) ??
      (await q.latestBackupWithAccounts(db, this.allocation.id));
    if (!backup) {
      return this.#fail('LECTURE_SAUVEGARDE', 'RESTORE_NO_BACKUP', 'No account backup for this router');
    }
    this.#backupDate = backup.created_at;
    const accounts = decodeAccounts(backup.accounts_json, backup.accounts_sha256);
    if (!accounts) {
      return this.#fail(
        'LECTURE_SAUVEGARDE',
        'RESTORE_BACKUP_UNREADABLE',
        'The account backup does not match its checksum or cannot be read: refused rather than restoring zero accounts',
      );
    }
    const restorable = accounts.users.filter((u) => u.name !== SPARED_USER).length;
    if (restorable === 0) {
      return this.#fail(
        'LECTURE_SAUVEGARDE',
        'RESTORE_BACKUP_EMPTY',
        'The backup holds no restorable account',
      );
    }
    this.#etapes.push({
      etape: 'LECTURE_SAUVEGARDE',
      etat: 'OK',
      comptes: restorable,
      profils: accounts.profiles.length,
    });
    return { backup, accounts };
  }

  async #profiles(accounts: BackupAccounts): Promise<void> {
    const batches: { profiles: BackupAccounts['profiles'] }[] = [];
    for (let i = 0; i < accounts.profiles.length; i += PROFILE_BATCH) {
      batches.push({ profiles: accounts.profiles.slice(i, i + PROFILE_BATCH) });
    }
    const run = await runWindowed(this.deps, this.#target, 'hotspot.profiles.restore', batches, 1);
    if (run.failure) {
      return this.#fail(
        'PROFILS',
        'RESTORE_USERS_FAILED',
        `Profiles not restored: ${outcomeReason(run.failure)}`,
      );
    }
    this.#etapes.push({ etape: 'PROFILS', etat: 'OK', profils: accounts.profiles.length });
  }

  async #accounts(users: BackupAccounts['users']): Promise<void> {
    const batches: { users: BackupAccounts['users'] }[] = [];
    for (let i = 0; i < users.length; i += RESTORE_BATCH)
      batches.push({ users: users.slice(i, i + RESTORE_BATCH) });
    const run = await runWindowed(this.deps, this.#target, 'hotspot.users.restore', batches, RESTORE_WINDOW);
    if (run.failure) {
      // What the router holds now, when it can still be read; else what the finished batches sent.
      const present = await this.#present(users.map((u) => u.name));
      this.#restored = present ?? Math.min(users.length, run.done * RESTORE_BATCH);
      return this.#fail(
        'COMPTES',
        'RESTORE_USERS_FAILED',
        `Restore interrupted with ${this.#restored} of ${users.length} accounts on the router: ${outcomeReason(run.failure)}`,
      );
    }
    this.#etapes.push({ etape: 'COMPTES', etat: 'OK', comptes: users.length });
  }

  /** The router's own list, not the commands' replies, says how many accounts are back. */
  async #verify(expected: string[]): Promise<void> {
    const present = await this.#present(expected);
    if (present === undefined) {
      return this.#fail('VERIFICATION', 'RESTORE_USERS_FAILED', 'Restored accounts cannot be counted');
    }
    this.#restored = present;
    if (present < expected.length) {
      this.#etapes.push({
        etape: 'VERIFICATION',
        etat: 'ECHEC',
        attendus: expected.length,
        presents: present,
      });
      return this.#fail(
        null,
        'RESTORE_INCOMPLETE',
        `${present} of ${expected.length} accounts are on the router: RADIUS stays on`,
      );
    }
    this.#etapes.push({ etape: 'VERIFICATION', etat: 'OK', attendus: expected.length, presents: present });
  }

  /** How many of `expected` the router lists now; undefined when it cannot be read. */
  async #present(expected: readonly string[]): Promise<number | undefined> {
    const listed = await callRouter(this.deps, this.#target, 'hotspot.users.names', {});
    if (listed.kind !== 'done') return undefined;
    const onRouter = new Set(listed.output.names);
    return expected.filter((n) => onRouter.has(n)).length;
  }

  async #cut(): Promise<void> {
    if (!this.couperRadius) {
      this.#etapes.push({ etape: 'RADIUS_COUPE', etat: 'NON_DEMANDE' });
      return;
    }
    const out = await this.deps.nas.cutRadius(
      this.clientId,
      this.allocation.id,
      waitFor(this.deps, 'router.script.apply'),
    );
    // Every account is back on the router already: a cut that failed leaves it dual, still working.
    this.#etapes.push(
      out.kind === 'done'
        ? { etape: 'RADIUS_COUPE', etat: 'OK' }
        : { etape: 'RADIUS_COUPE', etat: 'ECHEC', raison: outcomeReason(out) },
    );
  }

  async #ecartWithRadius(backupCodes: ReadonlySet<string>): Promise<Ecart> {
    const since = this.lease.row.switched_at;
    if (!since) {
      return {
        connu: false,
        ecart: null,
        avertissement:
          'La date de bascule vers RADIUS est inconnue : les tickets vendus depuis ne peuvent pas être comptés.',
      };
    }
    const ecart = await this.deps.tickets.countCreatedSince(this.clientId, since, backupCodes);
    return {
      connu: true,
      ecart,
      avertissement:
        ecart > 0
          ? `${ecart} tickets créés dans RADIUS depuis la bascule du ${since} ne sont pas dans la sauvegarde : ils ne fonctionneront sur ce routeur que tant que RADIUS reste actif.`
          : null,
    };
  }

  /** A return that stopped: RADIUS is never cut; the answer says what is on the router. */
  async #fail(etape: ReturnEtapeName | null, code: ReturnErrorCode, message: string): Promise<never> {
    if (etape) this.#etapes.push({ etape, etat: 'ECHEC', code, raison: message });
    const statut = this.lease.row.statut;
    await this.lease.save({
      error_code: code,
      updated_at: iso(this.deps.clock.now()),
    });
    this.deps.logger.warn({ allocationId: this.allocation.id, code, message }, 'return to local stopped');
    throw runFailed(code, message, { ...this.#answer(statut) });
  }

  #answer(statut: MigrationStatut): ReturnAnswer {
    return {
      success: true,
      statut,
      comptes_restaures: this.#restored,
      sauvegarde_datee_du: this.#backupDate,
      ecart_avec_radius: this.#ecart,
      etapes: [...this.#etapes],
    };
  }
}
