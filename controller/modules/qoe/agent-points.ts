// Network-quality points that agents send over their link: a `telemetry` report whose data is
// `{qoe: point}`. They reach the same ingestion as POST /qoe/telemetry, before the report is
// acknowledged, and take the place of the reports table: the points table keeps them once per NAS
// and instant, so a resend after a lost acknowledgement changes nothing.
import { AppError } from '../../core/app-error.js';
import type { Logger } from '../../logger.js';
import type { HeardReport } from '../allocations/index.js';
import { agentPoint } from './schemas.js';
import type { QoeService } from './service.js';

/** True when the report is a network-quality point (whatever its content is worth). */
export const isQoePoint = (r: HeardReport): r is HeardReport & { data: { qoe: unknown } } =>
  r.kind === 'telemetry' && typeof r.data === 'object' && r.data !== null && 'qoe' in r.data;

/** A report consumer for the allocations module: takes the points, leaves every other report. */
export function agentPointConsumer(qoe: QoeService, logger: Logger) {
  return async (report: HeardReport): Promise<boolean> => {
    if (!isQoePoint(report)) return false;
    const parsed = agentPoint.safeParse(report.data.qoe);
    // A point that can never be taken is dropped and acknowledged, or the agent would resend it
    // for ever; the log says which allocation sends bad points.
    if (!parsed.success) {
      logger.warn(
        { allocationId: report.allocationId, issues: parsed.error.issues.length },
        'qoe point refused',
      );
      return true;
    }
    try {
      await qoe.recordAgentPoint(report.clientId, report.allocationId, parsed.data);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      logger.warn({ allocationId: report.allocationId, code: err.code }, 'qoe point refused');
    }
    return true;
  };
}
