import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { CommandService } from '../../hub/command-service.js';
import type { Logger } from '../../logger.js';
import type { AllocationsService } from '../allocations/service.js';
import type { LicencesService } from '../licences/service.js';
import type { NasService } from '../nas/service.js';
import type { NotificationsService } from '../notifications/service.js';
import type { TicketsService } from '../tickets/service.js';

export interface MigrationOptions {
  /** How long a run holds its router without renewing (a dead controller's run frees it after this). */
  leaseMs: number;
  /** Longest wait for one agent command; the catalogue's timeout when absent. */
  maxCommandWaitMs?: number;
  /** Local accounts per removal command. */
  removeBatch: number;
  /** RADIUS_MIGRATION_WATCH_ENABLED and RADIUS_READY_AUTO_CONFIRM_ENABLED, read at each watch run. */
  watchEnabled: () => boolean;
  autoConfirm: () => boolean;
}

export const DEFAULT_MIGRATION_OPTIONS: MigrationOptions = {
  leaseMs: 120_000,
  removeBatch: 500,
  watchEnabled: () => true,
  autoConfirm: () => true,
};

export interface MigrationDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  allocations: AllocationsService;
  commands: CommandService;
  licences: LicencesService;
  tickets: TicketsService;
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
