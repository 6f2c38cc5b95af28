// The allocations module's public surface: other modules and the composition root import from here only.
export {
  AllocationsService,
  type AllocationView,
  type Enrolment,
  type HeardReport,
  type ReportConsumer,
  type ReportListener,
} from './service.js';
export { allocationsModule } from './module.js';
export type { AllocationsTables } from './tables.js';
export type { LinkFacts, LinkState, LinkStateReader } from './link-state.js';
