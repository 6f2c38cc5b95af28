// The bandwidth module's public surface: other modules and the composition root import from here only.
export { BandwidthService } from './service.js';
export { bandwidthModule } from './module.js';
export type { BandwidthTables } from './tables.js';
export type { BandwidthOptions, ImposedCaps } from './deps.js';
export type { PassCounters } from './reconcile.js';
