// The usage module's public surface: other modules and the composition root import from here only.
export { UsageService, type UsagePoint, type UsageTotals } from './service.js';
export { usageModule } from './module.js';
export type { UsageTables } from './tables.js';
export { addDays, knownZone, routerDay, type RouterDay } from './router-day.js';
