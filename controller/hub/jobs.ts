// The hub's scheduled jobs.
import type { JobDefinition } from '../jobs/scheduler.js';
import type { CommandService } from './command-service.js';

export const COMMAND_EXPIRY_JOB = 'AGENT_COMMAND_EXPIRY';

/** Every 30 s: commands past their deadline end EXPIRED (never run late). */
export function commandExpiryJob(deps: { commands: CommandService }): JobDefinition {
  return {
    name: COMMAND_EXPIRY_JOB,
    cadence: { everyMs: 30_000 },
    run: (now) => deps.commands.expireOverdue(now),
  };
}
