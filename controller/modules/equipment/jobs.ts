import type { JobDefinition } from '../../jobs/scheduler.js';
import type { DeviceWatch } from './device-watch.js';

/** Every minute (netwatch probes run 60 s apart): probe readings, pushes, and PENDING devices resumed. */
export function equipmentMonitorJob(deps: { watch: DeviceWatch }): JobDefinition {
  return {
    name: 'EQUIPMENT_MONITOR',
    cadence: { everyMs: 60_000 },
    run: (now) => deps.watch.round(now),
  };
}
