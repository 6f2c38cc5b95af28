// The NAS module's public surface: other modules and the composition root import from here only.
export { NasService, type BridgeTokenIssuer, type LiveNas, type TopologyExtension } from './service.js';
export { DbNasDirectory } from './db-nas-directory.js';
export { nasModule } from './module.js';
export type { NasTables } from './tables.js';
export type { Topology } from './topology.js';
