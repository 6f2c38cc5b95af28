import { defineModule } from '../define-module.js';
import { pushJob } from './jobs.js';
import { PremiereAuthNotifier } from './premiere.js';
import { PushDispatcher } from './push-dispatcher.js';
import { createPushSender } from './push-setup.js';
import { topologyRouterNames } from './router-names.js';
import { notificationsRoutes } from './routes.js';
import { NotificationsService } from './service.js';

export const notificationsModule = defineModule({
  name: 'notifications',
  tables: ['notifications', 'notification_devices'],
  provides: ['notifications', 'premiere'],
  build: async ({ db, clock, logger, config, options, use }) => {
    const notifications = new NotificationsService(db, clock);
    const pushSender =
      options.pushSender ??
      (await createPushSender({
        fcmServiceAccount: config.fcmServiceAccount,
        fcmProjectId: config.fcmProjectId,
        clock,
        logger,
        devices: notifications,
        http: options.httpClient,
      }));
    const premiere = new PremiereAuthNotifier({
      notifications,
      names: topologyRouterNames(use('nas')),
      logger,
    });
    use('radius').onAccepted(premiere.listener);
    return {
      services: { notifications, premiere },
      routes: (api) => notificationsRoutes(api, { notifications }),
      jobs: [pushJob({ dispatcher: new PushDispatcher(db, clock, pushSender, logger) })],
    };
  },
});
