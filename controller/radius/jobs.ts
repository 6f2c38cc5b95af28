// The RADIUS server's scheduled jobs.
import type { JobDefinition } from '../jobs/scheduler.js';
import type { RadiusService } from './radius-service.js';

export const STALE_SESSIONS_JOB = 'RADIUS_STALE_SESSIONS';

/** Closes the sessions a NAS stopped reporting, once per interim interval. */
export function staleSessionsJob(deps: { radius: RadiusService; interimSeconds: number }): JobDefinition {
  return {
    name: STALE_SESSIONS_JOB,
    cadence: { everyMs: deps.interimSeconds * 1000 },
    run: (now) => deps.radius.closeStaleSessions(now),
  };
}
