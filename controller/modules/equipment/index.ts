// The equipment module's public surface: other modules and the composition root import from here only.
export { EquipmentService } from './service.js';
export { equipmentModule } from './module.js';
export type { EquipmentTables } from './tables.js';
