// The resellers module's public surface: other modules and the composition root import from here only.
export { ResellersService } from './service.js';
export { resellersRoutes } from './routes.js';
export { TakeoverService } from './takeover-service.js';
export { takeoverRoutes } from './takeover-routes.js';
