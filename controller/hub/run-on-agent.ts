// One catalogue command run to its end for a module (NAS deployment, migration): stored, carried by the hub, awaited
// for at most `waitMs`. The command's own deadline is the same instant, so an agent that gets it
// late refuses it (DEADLINE_PASSED) instead of touching the router after the caller gave up.
import {
  parseCommandOutput,
  type CommandName,
  type CommandOutput,
  type CommandParams,
} from '../../protocol/index.js';
import type { CommandService } from './command-service.js';

export type AgentOutcome<T> =
  | { kind: 'done'; output: T }
  /** The router (or the agent) refused: a fault with its code. */
  | { kind: 'refused'; fault: { code: string; message: string; retryable: boolean } }
  /** No final answer in time, or the deadline passed on the way. */
  | { kind: 'timeout'; waitedMs: number };

export async function runOnAgent<N extends CommandName>(
  commands: CommandService,
  target: { clientId: string; allocationId: string },
  name: N,
  params: CommandParams<N>,
  waitMs: number,
): Promise<AgentOutcome<CommandOutput<N>>> {
  const queued = await commands.enqueue(target.clientId, target.allocationId, name, params, {
    timeoutMs: waitMs,
  });
  const result = await commands.waitForResult(target.clientId, queued.id, waitMs);
  if (result.state === 'DONE') {
    const checked = parseCommandOutput(name, result.output);
    if (checked.ok) return { kind: 'done', output: checked.value };
    return { kind: 'refused', fault: checked.fault };
  }
  if (result.state === 'FAILED' && result.fault && result.fault.code !== 'DEADLINE_PASSED') {
    const { code, message, retryable } = result.fault;
    return { kind: 'refused', fault: { code, message, retryable } };
  }
  return { kind: 'timeout', waitedMs: waitMs };
}
