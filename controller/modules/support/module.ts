import { defineModule } from '../define-module.js';
import { presenceSweepJob, progressionJob, reputationJob, silenceJob } from './jobs.js';
import * as m0061 from './migrations/0061-support.js';
import { MISSIONS_CHANNEL } from './context.js';
import { supportRoutes } from './routes.js';
import { SupportService } from './service.js';

export const supportModule = defineModule({
  name: 'support',
  tables: [
    'experts',
    'expert_tags',
    'support_categories',
    'support_missions',
    'support_reviews',
    'support_notes',
    'support_supervisions',
  ],
  migrations: { '0061-support': m0061 },
  provides: ['support'],
  build: ({ db, clock, logger, config, use }) => {
    const notifications = use('notifications');
    const realtime = use('realtime');
    const support = new SupportService(
      {
        db,
        clock,
        logger,
        realtime,
        notify: (push) => notifications.notify({ ...push, channels: ['in_app', 'push'] }),
        priorRating: config.supportPriorRating,
        priorWeight: config.supportPriorWeight,
      },
      use('accounts'),
    );
    realtime.guard(MISSIONS_CHANNEL, support.missionsGuard);
    return {
      services: { support },
      routes: (api) => supportRoutes(api, { support, clock }),
      jobs: [
        presenceSweepJob({ support }),
        reputationJob({ support }),
        progressionJob({ support }),
        silenceJob({ support }),
      ],
    };
  },
});
