// The hub's scheduled jobs.
import type { JobDefinition } from '../jobs/scheduler.js';
import type { CommandService } from './command-service.js';

export const COMMAND_EXPIRY_JOB = 'AGENT_COMMAND_EXPIRY';
export const COMMAND_PRUNE_JOB = 'AGENT_COMMAND_PRUNE';

/**
 * How long a final command is kept after its deadline: as long as the agent keeps its journal
 * entry (`JOURNAL_RETENTION_MS`), so neither end forgets a command the other may still mention.
 * Nothing reads a command once its waiter has its outcome but a client looking it up by id.
 */
export const COMMAND_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Every 30 s: commands past their deadline end EXPIRED (never run late). */
export function commandExpiryJob(deps: { commands: CommandService }): JobDefinition {
  return {
    name: COMMAND_EXPIRY_JOB,
    cadence: { everyMs: 30_000 },
    run: (now) => deps.commands.expireOverdue(now),
  };
}

/** Every hour: final commands (their outputs, backups included) past the retention are deleted. */
export function commandPruneJob(deps: { commands: CommandService }): JobDefinition {
  return {
    name: COMMAND_PRUNE_JOB,
    cadence: { everyMs: 60 * 60 * 1000 },
    run: (now) => deps.commands.pruneFinished(now, COMMAND_RETENTION_MS),
  };
}
