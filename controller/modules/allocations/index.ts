// The allocations module's public surface: other modules and the composition root import from here only.
export { AllocationsService, type AllocationView } from './service.js';
export { allocationsRoutes } from './routes.js';
export type { LinkFacts, LinkState, LinkStateReader } from './link-state.js';
