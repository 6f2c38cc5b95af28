import { defineModule } from '../define-module.js';
import { RealtimeBroker } from './broker.js';
import { presencePruneJob } from './jobs.js';
import * as m0060 from './migrations/0060-realtime.js';

export const realtimeModule = defineModule({
  name: 'realtime',
  tables: ['realtime_channels', 'realtime_publications', 'realtime_presence'],
  migrations: { '0060-realtime': m0060 },
  provides: ['realtime'],
  build: async ({ db, caps, listen, clock, logger, config, use }) => {
    const accounts = use('accounts');
    const realtime = new RealtimeBroker(
      { db, caps, clock, logger, ...(listen ? { listen } : {}), authenticate: accounts.authenticate },
      {
        instanceId: config.instanceId,
        allowedOrigins: config.realtimeAllowedOrigins,
        pingSeconds: config.realtimePingSeconds,
      },
    );
    await realtime.start();
    return { services: { realtime }, jobs: [presencePruneJob({ realtime })] };
  },
});
