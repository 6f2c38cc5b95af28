// The sales module's public surface: other modules and the composition root import from here only.
export { SalesService } from './service.js';
export { salesModule } from './module.js';
export type { SalesTables } from './tables.js';
