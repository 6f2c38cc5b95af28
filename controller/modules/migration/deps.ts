import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { Logger } from '../../logger.js';
import type { AllocationsService } from '../allocations/index.js';
import type { LicencesService } from '../licences/index.js';
import type { NasService } from '../nas/index.js';
import type { NotificationsService } from '../notifications/index.js';
import type { ProfilesService, RouterImportService, TicketsService } from '../tickets/index.js';

export interface MigrationOptions {
  /** How long a run holds its router without renewing (a dead controller's run frees it after this). */
  leaseMs: number;
  /** Longest wait for one agent command; the catalogue's timeout when absent. */
  maxCommandWaitMs?: number;
  /** Local accounts per removal command. */
  removeBatch: number;
  /** Read at each run of the watch job: a first real authentication confirms the migration by itself. */
  autoConfirm: () => boolean;
}

export const DEFAULT_MIGRATION_OPTIONS: MigrationOptions = {
  leaseMs: 120_000,
  removeBatch: 500,
  autoConfirm: () => true,
};

export interface MigrationDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  allocations: AllocationsService;
  runner: AgentCommandRunner;
  licences: LicencesService;
  tickets: TicketsService;
  profiles: ProfilesService;
  ticketImport: RouterImportService;
  nas: NasService;
  radius: {
    firstAcceptSince(
      clientId: string,
      nasId: string,
      since: string,
    ): Promise<{ username: string; at: string } | null>;
  };
  notifications: NotificationsService;
  options: MigrationOptions;
}
