// The broker's scheduled job.
import type { JobDefinition } from '../../jobs/scheduler.js';
import type { RealtimeBroker } from './broker.js';

/** Every 5 minutes: presence rows of instances that died without closing their sockets go. */
export function presencePruneJob(deps: { realtime: RealtimeBroker }): JobDefinition {
  return {
    name: 'REALTIME_PRESENCE_PRUNE',
    cadence: { everyMs: 5 * 60_000 },
    run: (now) => deps.realtime.pruneStalePresence(now),
  };
}
