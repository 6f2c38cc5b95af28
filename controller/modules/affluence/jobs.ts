// The affluence module's scheduled jobs.
import type { JobDefinition } from '../../jobs/scheduler.js';
import { sendDailyReports, type DailyReportDeps } from './daily-report.js';
import { reportDate } from './day.js';

export const AFFLUENCE_JOB = 'RADIUS_AFFLUENCE';
export const AFFLUENCE_AT_UTC = '20:00';

export function affluenceReportJob(deps: DailyReportDeps): JobDefinition {
  return {
    name: AFFLUENCE_JOB,
    cadence: { dailyAtUtc: AFFLUENCE_AT_UTC },
    enabled: deps.enabled,
    run: (now) => sendDailyReports(deps, reportDate(now, AFFLUENCE_AT_UTC)),
  };
}
