// The migration module's scheduled jobs.
import type { JobDefinition } from '../../jobs/scheduler.js';
import type { MigrationService } from './service.js';

export const MIGRATION_WATCH_JOB = 'RADIUS_MIGRATION_WATCH';
const MIGRATION_WATCH_EVERY_MS = 180_000;

/** Every 3 minutes: armed migrations are confirmed by a first real authentication (watch.ts). */
export function migrationWatchJob(deps: {
  migration: MigrationService;
  enabled: () => boolean;
}): JobDefinition {
  return {
    name: MIGRATION_WATCH_JOB,
    cadence: { everyMs: MIGRATION_WATCH_EVERY_MS },
    enabled: deps.enabled,
    run: (now) => deps.migration.watchArmed(now),
  };
}
