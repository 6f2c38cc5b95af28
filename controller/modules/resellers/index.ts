// The resellers module's public surface: other modules and the composition root import from here only.
export { ResellersService } from './service.js';
export { resellersRoutes } from './routes.js';
export { TakeoverService } from './takeover-service.js';
export { takeoverRoutes } from './takeover-routes.js';
export { normaliseUsername } from './username.js';
export { resellersModule } from './module.js';
export type { ResellersTables } from './tables.js';
export type { TakeoverTables } from './takeover-tables.js';
