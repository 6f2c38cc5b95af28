// The shop module's public surface: other modules and the composition root import from here only.
export { ShopService } from './service.js';
export type { SaleInput, SaleRecord } from './wallet-service.js';
export { shopModule } from './module.js';
export type { ShopTables } from './tables.js';
