// The remote-access module's scheduled jobs.
import type { JobDefinition } from '../../jobs/scheduler.js';
import type { CredentialsService } from './credentials-service.js';
import type { RescueService } from './rescue-service.js';

export const RESCUE_READ_JOB = 'REMOTE_ACCESS_RESCUE_READ';

/** Every 30 s: rescue relays enabled at least 25 s ago are read and their profile kept sealed. */
export function rescueReadJob(deps: { rescue: RescueService }): JobDefinition {
  return {
    name: RESCUE_READ_JOB,
    cadence: { everyMs: 30_000 },
    run: (now) => deps.rescue.readDue(now),
  };
}

export const CREDENTIALS_HANDOVER_JOB = 'REMOTE_ACCESS_CREDENTIALS';

/** Every minute: router credentials not yet taken go to the agents connected now. */
export function credentialsHandoverJob(deps: { credentials: CredentialsService }): JobDefinition {
  return {
    name: CREDENTIALS_HANDOVER_JOB,
    cadence: { everyMs: 60_000 },
    run: () => deps.credentials.handOverDue(),
  };
}
