// The migration module's public surface: other modules and the composition root import from here only.
export { MigrationService } from './service.js';
export { type MigrationOptions } from './deps.js';
export { migrationModule } from './module.js';
export type { MigrationTables } from './tables.js';
