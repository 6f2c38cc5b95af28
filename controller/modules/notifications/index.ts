// The notifications module's public surface: other modules and the composition root import from here only.
export { NotificationsService } from './service.js';
export { PremiereAuthNotifier } from './premiere.js';
export { PushDispatcher } from './push-dispatcher.js';
export type { PushSender } from './push-sender.js';
export type { HttpClient } from './http-client.js';
export { notificationsModule } from './module.js';
export type { NotificationsTables } from './tables.js';
