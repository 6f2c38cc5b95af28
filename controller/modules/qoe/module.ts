import { defineModule } from '../define-module.js';
import { agentPointConsumer } from './agent-points.js';
import { qoeDailyReportJob, qoeUsageAlertsJob } from './jobs.js';
import * as m0070 from './migrations/0070-qoe.js';
import * as m0071 from './migrations/0071-qoe-reports.js';
import { qoeRoutes } from './routes.js';
import { QoeService } from './service.js';

export const qoeModule = defineModule({
  name: 'qoe',
  tables: ['qoe_bridge_tokens', 'qoe_points', 'qoe_alerts', 'qoe_reports'],
  migrations: { '0070-qoe': m0070, '0071-qoe-reports': m0071 },
  provides: ['qoe'],
  build: ({ db, clock, logger, use }) => {
    const qoe = new QoeService({
      db,
      clock,
      logger,
      nas: use('nas'),
      usage: use('usage'),
      bandwidth: use('bandwidth'),
      notifications: use('notifications'),
    });
    // Points from the agents' link go through the same ingestion as the HTTP route.
    use('allocations').addReportConsumer(agentPointConsumer(qoe, logger));
    return {
      services: { qoe },
      routes: (api) => qoeRoutes(api, { qoe }),
      jobs: [qoeUsageAlertsJob({ qoe }), qoeDailyReportJob({ qoe })],
    };
  },
});
