import { defineModule } from '../define-module.js';
import { affluenceReportJob } from './jobs.js';
import { topologyRadiusRouters } from './routers.js';
import { affluenceRoutes } from './routes.js';
import { AffluenceService } from './service.js';

export const affluenceModule = defineModule({
  name: 'affluence',
  tables: [],
  provides: ['affluence'],
  build: ({ clock, logger, config, use }) => {
    const affluence = new AffluenceService(clock, use('radius').authLog, topologyRadiusRouters(use('nas')));
    return {
      services: { affluence },
      routes: (api) => affluenceRoutes(api, { affluence }),
      jobs: [
        affluenceReportJob({
          affluence,
          notifications: use('notifications'),
          logger,
          enabled: () => config.radiusAffluenceReportEnabled,
        }),
      ],
    };
  },
});
