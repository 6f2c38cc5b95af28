// The realtime broker's public surface: other modules publish through RealtimeBroker and may
// guard a channel; the composition root hands it /realtime upgrades.
export { RealtimeBroker, REALTIME_PATH, type ChannelGuard } from './broker.js';
export { realtimeModule } from './module.js';
export type { RealtimeTables } from './tables.js';
