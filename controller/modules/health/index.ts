// The health module's public surface: other modules and the composition root import from here only.
export { healthRoutes } from './routes.js';
export { healthModule } from './module.js';
