import { RateLimiter } from '../../http/rate-limiter.js';
import { defineModule } from '../define-module.js';
import { DEFAULT_BANDWIDTH_OPTIONS } from './deps.js';
import { bandwidthReconcileJob } from './jobs.js';
import * as m0041 from './migrations/0041-bandwidth.js';
import * as m0042 from './migrations/0042-bandwidth-digests.js';
import * as m0074 from './migrations/0074-qoe-notification-preferences.js';
import { bandwidthRoutes } from './routes.js';
import { BandwidthService } from './service.js';

/** PUT and DELETE of a programme: 5 calls a minute per user, then 429 CLICK_SPAM_PROTECTION. */
export const PROGRAMME_QUOTA = { limit: 5, windowMs: 60_000 };

export const bandwidthModule = defineModule({
  name: 'bandwidth',
  tables: [
    'bandwidth_programmes',
    'bandwidth_revisions',
    'bandwidth_activity',
    'bandwidth_throttles',
    'bandwidth_capped_days',
    'bandwidth_alerts',
    'qoe_notification_preferences',
  ],
  migrations: {
    '0041-bandwidth': m0041,
    '0042-bandwidth-digests': m0042,
    '0074-qoe-notification-preferences': m0074,
  },
  provides: ['bandwidth'],
  build: ({ db, clock, logger, options, use }) => {
    const bandwidth = new BandwidthService({
      db,
      clock,
      logger,
      licences: use('licences'),
      nas: use('nas'),
      runner: use('runner'),
      links: use('agentLinks'),
      usage: use('usage'),
      radius: use('radius'),
      notifications: use('notifications'),
      options: { ...DEFAULT_BANDWIDTH_OPTIONS, ...options.bandwidth },
    });
    const programmeLimiter = new RateLimiter(PROGRAMME_QUOTA, clock, 'CLICK_SPAM_PROTECTION');
    return {
      services: { bandwidth },
      routes: (api) => bandwidthRoutes(api, { bandwidth, programmeLimiter }),
      jobs: [bandwidthReconcileJob({ bandwidth })],
    };
  },
});
