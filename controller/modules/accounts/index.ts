// The accounts module's public surface: other modules and the composition root import from here only.
export { AccountsService } from './service.js';
export { accountsModule } from './module.js';
export type { AccountsTables } from './tables.js';
