// The resellers module's public surface: other modules and the composition root import from here only.
export { ResellersService } from './service.js';
export { resellersModule } from './module.js';
export type { ResellersTables } from './tables.js';
export type { ResellerIdentity, ImportTarget, ImportedLine } from './router-accounts.js';
