// The resellers module's public surface: other modules and the composition root import from here only.
export { ResellersService } from './service.js';
export { resellersRoutes } from './routes.js';
export { resellersModule } from './module.js';
export type { ResellersTables } from './tables.js';
export type { ImportTarget, ImportedAccount, ImportedLine } from './router-accounts.js';
