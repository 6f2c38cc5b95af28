// The sales module's public surface: other modules and the composition root import from here only.
export { SalesService } from './service.js';
export { salesRoutes } from './routes.js';
export { runRouterCommand, type RouterCommandDeps } from './router-command.js';
