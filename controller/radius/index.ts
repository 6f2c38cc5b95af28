// The RADIUS server's public surface: modules and the composition root import from here only.
export { RadiusService, type RadiusServiceOptions } from './radius-service.js';
export type { AcceptedEvent } from './access-handler.js';
export {
  AuthLogReader,
  type AuthLogScope,
  type DeviceAttempt,
  type HourlyAttempts,
} from './auth-log-reader.js';
export { disconnectRequest, type DisconnectTarget } from './disconnect-request.js';
export type { OpenSession, SessionStop } from './radius-service.js';
export { normaliseIp, type NasDirectory, type NasEntry } from './nas-directory.js';
export type { RadiusAddresses } from './udp-listener.js';
export { radiusModule } from './module.js';
export type { RadiusTables } from './tables.js';
