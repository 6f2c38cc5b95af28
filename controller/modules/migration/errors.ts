// The refusals of the migration routes. A failed run answers its state with the error (statut,
// etapes so far, counts) so the administrator sees what stayed on the router.
import { AppError, type ErrorCode } from '../../core/app-error.js';

export type MigrationErrorCode = Extract<
  ErrorCode,
  | 'MIGRATION_BACKUP_FAILED'
  | 'MIGRATION_BACKUP_EMPTY'
  | 'MIGRATION_IMPORT_FAILED'
  | 'MIGRATION_DEPLOY_FAILED'
  | 'MIGRATION_COUNT_FAILED'
  | 'MIGRATION_REMOVE_STALLED'
  | 'MIGRATION_REMOVE_UNVERIFIED'
>;

export type ReturnErrorCode = Extract<
  ErrorCode,
  | 'RESTORE_NO_BACKUP'
  | 'RESTORE_BACKUP_UNREADABLE'
  | 'RESTORE_BACKUP_EMPTY'
  | 'RESTORE_USERS_FAILED'
  | 'RESTORE_INCOMPLETE'
>;

export const migrationInProgress = (): AppError =>
  new AppError(
    'MIGRATION_IN_PROGRESS',
    'A migration or a return of this router is running; wait for its answer before trying again',
  );

/** A run stopped: the error carries the run's answer (`success` false) beside the code. */
export const runFailed = (
  code: MigrationErrorCode | ReturnErrorCode,
  message: string,
  answer: Record<string, unknown>,
): AppError => new AppError(code, message, { extra: { ...answer, success: false } });
