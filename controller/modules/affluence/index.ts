// The affluence module's public surface: other modules and the composition root import from here only.
export { AffluenceService } from './service.js';
export { affluenceRoutes } from './routes.js';
export { affluenceReportJob } from './daily-report.js';
export { topologyRadiusRouters } from './routers.js';
export type { AuthLog } from './auth-log.js';
