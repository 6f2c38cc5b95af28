import { defineModule } from '../define-module.js';
import { DEFAULT_MIGRATION_OPTIONS } from './deps.js';
import { migrationWatchJob } from './jobs.js';
import { migrationRoutes } from './routes.js';
import { MigrationService } from './service.js';

export const migrationModule = defineModule({
  name: 'migration',
  tables: ['radius_migrations', 'radius_migration_backups'],
  provides: ['migration'],
  build: ({ db, clock, logger, config, options, use }) => {
    const migration = new MigrationService({
      db,
      clock,
      logger,
      allocations: use('allocations'),
      runner: use('runner'),
      licences: use('licences'),
      tickets: use('tickets'),
      profiles: use('profiles'),
      ticketImport: use('ticketImport'),
      nas: use('nas'),
      radius: use('radius'),
      notifications: use('notifications'),
      options: {
        ...DEFAULT_MIGRATION_OPTIONS,
        leaseMs: config.migrationLeaseMs,
        ...options.migration,
        autoConfirm: () => config.radiusReadyAutoConfirmEnabled,
      },
    });
    return {
      services: { migration },
      routes: (api) => migrationRoutes(api, { migration }),
      jobs: [migrationWatchJob({ migration, enabled: () => config.radiusMigrationWatchEnabled })],
    };
  },
});
