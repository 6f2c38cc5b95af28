// Agent commands of a run: each waits for at most the catalogue's timeout (or the configured cap),
// so a router on a slow link gets the time its command needs and a dead one does not hang a run.
import {
  COMMANDS,
  type CommandName,
  type CommandOutput,
  type CommandParams,
} from '../../../protocol/index.js';
import type { AgentOutcome, AgentTarget } from '../../hub/index.js';
import type { MigrationDeps } from './deps.js';

export function waitFor(deps: MigrationDeps, name: CommandName): number {
  const catalogue = COMMANDS[name].defaultTimeoutSeconds * 1000;
  return Math.min(catalogue, deps.options.maxCommandWaitMs ?? catalogue);
}

export function callRouter<N extends CommandName>(
  deps: MigrationDeps,
  target: AgentTarget,
  name: N,
  params: CommandParams<N>,
): Promise<AgentOutcome<CommandOutput<N>>> {
  return deps.runner.run(target, name, params, waitFor(deps, name));
}

/**
 * True when the agent does not know the command (a build older than it): the caller then asks with
 * the older command that answers the same question at a higher cost in bytes.
 */
export function unknownToAgent(outcome: AgentOutcome<unknown>): boolean {
  return outcome.kind === 'refused' && outcome.fault.code === 'UNKNOWN_COMMAND';
}

/** One line for logs and answers: why a command gave no output. */
export function outcomeReason(outcome: Exclude<AgentOutcome<unknown>, { kind: 'done' }>): string {
  return outcome.kind === 'timeout'
    ? `no answer from the router within ${Math.round(outcome.waitedMs / 1000)} s`
    : `${outcome.fault.code}: ${outcome.fault.message}`;
}

/**
 * Runs one command per params, with up to `window` of them queued on the agent at once (it runs
 * them one after another): over a long round trip the run waits once per window, not per command.
 * For commands whose order does not matter (idempotent batches). A command without output is
 * sent once more; if it fails again no new command is started, those under way are awaited, and
 * the first failure is answered.
 */
export async function runWindowed<N extends CommandName>(
  deps: MigrationDeps,
  target: AgentTarget,
  name: N,
  batches: readonly CommandParams<N>[],
  window: number,
): Promise<{ done: number; failure?: Exclude<AgentOutcome<unknown>, { kind: 'done' }> }> {
  let next = 0;
  let done = 0;
  let failure: Exclude<AgentOutcome<unknown>, { kind: 'done' }> | undefined;
  const worker = async () => {
    while (failure === undefined && next < batches.length) {
      const params = batches[next++]!;
      let out = await callRouter(deps, target, name, params);
      if (out.kind !== 'done') out = await callRouter(deps, target, name, params);
      if (out.kind === 'done') done++;
      else failure ??= out;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(window, batches.length)) }, worker));
  return failure === undefined ? { done } : { done, failure };
}
