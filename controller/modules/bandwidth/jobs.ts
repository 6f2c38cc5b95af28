// The bandwidth module's scheduled job.
import type { JobDefinition } from '../../jobs/scheduler.js';
import type { BandwidthService } from './service.js';

export const BANDWIDTH_RECONCILE_JOB = 'BANDWIDTH_RECONCILE';
const EVERY_MS = 5 * 60_000;
/** Routers one scheduled pass takes, oldest first (the admin route's default is 40). */
export const JOB_PASS_LIMIT = 1000;

/** Every 5 minutes: routers are held to their programmes (reconcile.ts). */
export function bandwidthReconcileJob(deps: { bandwidth: BandwidthService }): JobDefinition {
  return {
    name: BANDWIDTH_RECONCILE_JOB,
    cadence: { everyMs: EVERY_MS },
    run: (now) => deps.bandwidth.reconcile(JOB_PASS_LIMIT, now),
  };
}
