// The technician hub's public surface.
export { SupportService } from './service.js';
export { supportModule } from './module.js';
export type { SupportTables } from './tables.js';
