// Runs one catalogue command on a client's router for an HTTP request: the command is stored and
// carried by the agent's link like any other (durable, deadline), and the request waits for its
// outcome. No database transaction is open while it waits. Used by the takeover and the sales import.
import {
  parseCommandOutput,
  type CommandName,
  type CommandOutput,
  type CommandParams,
} from '../../../protocol/index.js';
import { AppError } from '../../core/app-error.js';
import type { CommandService } from '../../hub/index.js';
import type { AllocationsService } from '../allocations/index.js';

export interface RouterCommandDeps {
  allocations: AllocationsService;
  commands: CommandService;
}

/** Margin past the command's deadline so its own ending (FAILED DEADLINE_PASSED) is what we report. */
const WAIT_MARGIN_MS = 2000;

/**
 * @throws AppError ALLOCATION_NOT_FOUND (404, unknown or another tenant's), VPN_TUNNEL_NOT_CONNECTED
 * (409, the agent's link is down: nothing is queued), ROUTER_COMMAND_FAILED (502),
 * ROUTER_COMMAND_TIMEOUT (504).
 */
export async function runRouterCommand<N extends CommandName>(
  deps: RouterCommandDeps,
  clientId: string,
  allocationId: string,
  name: N,
  params: CommandParams<N>,
  timeoutMs: number,
): Promise<CommandOutput<N>> {
  const allocation = await deps.allocations.get(clientId, allocationId);
  // Refused rather than queued: a request cannot wait for an agent that may come back in a day,
  // and a read queued now would run later for nobody.
  if (allocation.link_state !== 'CONNECTED') {
    throw new AppError(
      'VPN_TUNNEL_NOT_CONNECTED',
      'The site agent of this router is not connected; the router cannot be read now',
      { details: { allocation_id: allocationId, link_state: allocation.link_state } },
    );
  }
  const command = await deps.commands.enqueue(clientId, allocationId, name, params, { timeoutMs });
  const done = await deps.commands.waitForResult(clientId, command.id, timeoutMs + WAIT_MARGIN_MS);
  if (done.state === 'DONE') {
    const checked = parseCommandOutput(name, done.output);
    if (checked.ok) return checked.value;
    throw failed(command.id, name, checked.fault);
  }
  if (done.state === 'FAILED' || done.state === 'EXPIRED') {
    throw failed(
      command.id,
      name,
      done.fault ?? { code: 'DEADLINE_PASSED', message: 'the command expired', retryable: true },
    );
  }
  throw new AppError('ROUTER_COMMAND_TIMEOUT', `The router did not answer ${name} in time; retry later`, {
    details: { command_id: command.id, command: name, state: done.state },
  });
}

function failed(
  commandId: string,
  name: string,
  fault: { code: string; message: string; retryable: boolean },
): AppError {
  return new AppError('ROUTER_COMMAND_FAILED', `The router could not run ${name}: ${fault.message}`, {
    details: { command_id: commandId, command: name, fault },
  });
}
