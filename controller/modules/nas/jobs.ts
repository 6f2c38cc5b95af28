// The NAS module's scheduled jobs.
import type { JobDefinition } from '../../jobs/scheduler.js';
import type { NasService } from './service.js';

export const DEPLOYMENT_SWEEP_JOB = 'NAS_DEPLOYMENT_SWEEP';

/** Every minute: an enrolment whose deployment lock expired is undone. */
export function deploymentSweepJob(deps: { nas: NasService }): JobDefinition {
  return {
    name: DEPLOYMENT_SWEEP_JOB,
    cadence: { everyMs: 60_000 },
    run: (now) => deps.nas.cancelExpiredDeployments(now),
  };
}
