import { defineModule } from '../define-module.js';
import { agentPointConsumer } from './agent-points.js';
import { qoeDailyReportJob, qoeKickReconcileJob, qoeUsageAlertsJob } from './jobs.js';
import * as m0070 from './migrations/0070-qoe.js';
import * as m0071 from './migrations/0071-qoe-reports.js';
import * as m0072 from './migrations/0072-qoe-actions.js';
import * as m0073 from './migrations/0073-qoe-points-one-key.js';
import { qoeRoutes } from './routes.js';
import { CONCURRENT_BATCHES } from './point-ingestion.js';
import { QoeService } from './service.js';

export const qoeModule = defineModule({
  name: 'qoe',
  tables: ['qoe_bridge_tokens', 'qoe_points', 'qoe_alerts', 'qoe_reports', 'qoe_actions'],
  migrations: {
    '0070-qoe': m0070,
    '0071-qoe-reports': m0071,
    '0072-qoe-actions': m0072,
    '0073-qoe-points-one-key': m0073,
  },
  provides: ['qoe'],
  build: ({ db, caps, clock, logger, use }) => {
    const radius = use('radius');
    const qoe = new QoeService({
      db,
      clock,
      logger,
      nas: use('nas'),
      usage: use('usage'),
      bandwidth: use('bandwidth'),
      notifications: use('notifications'),
      radius,
      commands: use('commands'),
      runner: use('runner'),
      concurrentBatches: caps.concurrentTransactions ? CONCURRENT_BATCHES : 1,
    });
    // A kick waiting on a session sees it end as soon as its Stop is committed here.
    radius.onSessionStopped((stop) => {
      void qoe.kicks.sessionStopped(stop).catch((err: unknown) => {
        logger.warn({ err: (err as Error).message }, 'kick not settled on accounting Stop');
      });
    });
    // Points from the agents' link go through the same ingestion as the HTTP route.
    use('allocations').addReportConsumer(agentPointConsumer(qoe, logger));
    return {
      services: { qoe },
      routes: (api) => qoeRoutes(api, { qoe }),
      jobs: [qoeUsageAlertsJob({ qoe }), qoeDailyReportJob({ qoe }), qoeKickReconcileJob({ qoe })],
    };
  },
});
