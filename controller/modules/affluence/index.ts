// The affluence module's public surface: other modules and the composition root import from here only.
export { AffluenceService } from './service.js';
export { affluenceRoutes } from './routes.js';
export { topologyRadiusRouters } from './routers.js';
export { affluenceModule } from './module.js';
export type { AuthLog } from './auth-log.js';
