// One catalogue command run to its end for a caller: stored, carried by the hub like any other
// (durable, with a deadline), awaited, its output checked against the catalogue. Two ways to end:
// `run` answers an outcome (jobs and runs that decide what a failure means), `runForRequest` answers
// the output or throws the AppError an HTTP request reports. No database transaction is open while
// either waits.
import {
  parseCommandOutput,
  type CommandName,
  type CommandOutput,
  type CommandParams,
} from '../../protocol/index.js';
import { AppError } from '../core/app-error.js';
import type { AllocationsService } from '../modules/allocations/index.js';
import type { CommandService, CommandView } from './command-service.js';

/** The router a command is for: a client's allocation. */
export interface AgentTarget {
  clientId: string;
  allocationId: string;
}

export interface CommandFault {
  code: string;
  message: string;
  retryable: boolean;
}

export type AgentOutcome<T> =
  | { kind: 'done'; output: T }
  /** The router (or the agent) refused: a fault with its code. */
  | { kind: 'refused'; fault: CommandFault }
  /** No final answer in time, or the deadline passed on the way. */
  | { kind: 'timeout'; waitedMs: number };

/** Margin past the command's deadline so its own ending (FAILED DEADLINE_PASSED) is what a request reports. */
const REQUEST_WAIT_MARGIN_MS = 2000;

export class AgentCommandRunner {
  constructor(
    private readonly commands: CommandService,
    /** The link check of a request: the allocation's view says whether its agent is connected. */
    private readonly allocations: Pick<AllocationsService, 'get'>,
  ) {}

  /**
   * Waits for at most `waitMs`. The command's own deadline is the same instant, so an agent that
   * gets it late refuses it (DEADLINE_PASSED) instead of touching the router after the caller gave up.
   */
  async run<N extends CommandName>(
    target: AgentTarget,
    name: N,
    params: CommandParams<N>,
    waitMs: number,
  ): Promise<AgentOutcome<CommandOutput<N>>> {
    const result = await this.#enqueueAndWait(target, name, params, waitMs, waitMs);
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

  /**
   * For an HTTP request: the command's deadline is `timeoutMs` from now, and the request waits a
   * little longer so that the command's own ending is what it reports.
   * @throws AppError ALLOCATION_NOT_FOUND (404, unknown or another tenant's), VPN_TUNNEL_NOT_CONNECTED
   * (409, the agent's link is down: nothing is queued), ROUTER_COMMAND_FAILED (502),
   * ROUTER_COMMAND_TIMEOUT (504).
   */
  async runForRequest<N extends CommandName>(
    target: AgentTarget,
    name: N,
    params: CommandParams<N>,
    timeoutMs: number,
  ): Promise<CommandOutput<N>> {
    const { clientId, allocationId } = target;
    const allocation = await this.allocations.get(clientId, allocationId);
    // Refused rather than queued: a request cannot wait for an agent that may come back in a day,
    // and a read queued now would run later for nobody.
    if (allocation.link_state !== 'CONNECTED') {
      throw new AppError(
        'VPN_TUNNEL_NOT_CONNECTED',
        'The site agent of this router is not connected; the router cannot be read now',
        { details: { allocation_id: allocationId, link_state: allocation.link_state } },
      );
    }
    const done = await this.#enqueueAndWait(
      target,
      name,
      params,
      timeoutMs,
      timeoutMs + REQUEST_WAIT_MARGIN_MS,
    );
    if (done.state === 'DONE') {
      const checked = parseCommandOutput(name, done.output);
      if (checked.ok) return checked.value;
      throw commandFailed(done.id, name, checked.fault);
    }
    if (done.state === 'FAILED' || done.state === 'EXPIRED') {
      throw commandFailed(
        done.id,
        name,
        done.fault ?? { code: 'DEADLINE_PASSED', message: 'the command expired', retryable: true },
      );
    }
    throw new AppError('ROUTER_COMMAND_TIMEOUT', `The router did not answer ${name} in time; retry later`, {
      details: { command_id: done.id, command: name, state: done.state },
    });
  }

  // Stored with its deadline `deadlineMs` from now, then awaited for at most `waitMs`.
  async #enqueueAndWait<N extends CommandName>(
    target: AgentTarget,
    name: N,
    params: CommandParams<N>,
    deadlineMs: number,
    waitMs: number,
  ): Promise<CommandView> {
    const queued = await this.commands.enqueue(target.clientId, target.allocationId, name, params, {
      timeoutMs: deadlineMs,
    });
    return this.commands.waitForResult(target.clientId, queued.id, waitMs);
  }
}

function commandFailed(commandId: string, name: string, fault: CommandFault): AppError {
  return new AppError('ROUTER_COMMAND_FAILED', `The router could not run ${name}: ${fault.message}`, {
    details: { command_id: commandId, command: name, fault },
  });
}
