// The QoE module's public surface: other modules and the composition root import from here only.
export { QoeService } from './service.js';
export { qoeModule } from './module.js';
export type { QoeTables } from './tables.js';
