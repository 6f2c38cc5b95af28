// The licences module's public surface: other modules and the composition root import from here only.
export { LicencesService } from './service.js';
export { licencesModule } from './module.js';
export type { LicencesTables } from './tables.js';
