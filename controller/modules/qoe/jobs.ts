// The QoE module's scheduled job.
import type { JobDefinition } from '../../jobs/scheduler.js';
import type { QoeService } from './service.js';

export const QOE_USAGE_ALERTS_JOB = 'QOE_USAGE_ALERTS';
const EVERY_MS = 5 * 60_000;

/** Every 5 minutes: usage alerts for every enrolled NAS, whatever path brought its counters. */
export function qoeUsageAlertsJob(deps: { qoe: QoeService }): JobDefinition {
  return {
    name: QOE_USAGE_ALERTS_JOB,
    cadence: { everyMs: EVERY_MS },
    run: (now) => deps.qoe.alerts.catchUp(now),
  };
}

export const QOE_DAILY_REPORT_JOB = 'QOE_DAILY_REPORT';

/** Every minute: the clients whose PRIMARY router day is at 23:59 get their daily report. */
export function qoeDailyReportJob(deps: { qoe: QoeService }): JobDefinition {
  return {
    name: QOE_DAILY_REPORT_JOB,
    cadence: { everyMs: 60_000 },
    run: (now) => deps.qoe.reports.run(now),
  };
}

export const QOE_KICK_RECONCILE_JOB = 'QOE_KICK_RECONCILE';

/** Every 10 seconds: the RUNNING kicks are judged (session seen ending, or the deadline passed). */
export function qoeKickReconcileJob(deps: { qoe: QoeService }): JobDefinition {
  return {
    name: QOE_KICK_RECONCILE_JOB,
    cadence: { everyMs: 10_000 },
    run: (now) => deps.qoe.kicks.reconcile(now),
  };
}
