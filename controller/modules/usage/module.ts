import { defineModule } from '../define-module.js';
import * as m0040 from './migrations/0040-usage.js';
import { UsageService } from './service.js';

export const usageModule = defineModule({
  name: 'usage',
  tables: ['usage_routers', 'usage_hours'],
  migrations: { '0040-usage': m0040 },
  provides: ['usage'],
  build: ({ db, caps, clock, logger, use }) => {
    const usage = new UsageService(db, clock, logger, caps.rowLocks, caps.writableCtes);
    const allocations = use('allocations');
    // Each report the hub stores (once per report, whatever its resends) reaches the store.
    allocations.addReportListener((report) => {
      usage
        .fromReport(report.clientId, report.allocationId, report.kind, report.at, report.data)
        .catch((err: unknown) => usage.logFailure(err, report.allocationId));
    });
    return { services: { usage } };
  },
});
