// The notifications module's scheduled jobs.
import type { JobDefinition } from '../../jobs/scheduler.js';
import type { PushDispatcher } from './push-dispatcher.js';

export const PUSH_JOB = 'NOTIFICATIONS_PUSH';

/** Every 10 s: sends the pushes that are due (a run may take long on a slow provider). */
export function pushJob(deps: { dispatcher: PushDispatcher }): JobDefinition {
  return {
    name: PUSH_JOB,
    cadence: { everyMs: 10_000 },
    leaseMs: 5 * 60_000,
    run: (now) => deps.dispatcher.run(now),
  };
}
