// The takeover module's public surface: other modules and the composition root import from here only.
export { TakeoverService } from './service.js';
export { takeoverModule } from './module.js';
export type { TakeoverTables } from './tables.js';
