// The routes of an allocation served by the hub: its revocation (the link is closed for good), and
// its commands: a client queues a catalogue command for its agent and reads
// it back. Under the allocation's path, served by the hub's command queue. Only the catalogue's
// reads: a command that changes the router goes through the module whose rules guard it (the NAS
// enrolment, the migration and its return), never straight from a client.
import { changesRouter } from '../../protocol/index.js';
import { AppError } from '../core/app-error.js';
import type { Api } from '../http/api.js';
import type { AllocationsService } from '../modules/allocations/index.js';
import type { AgentHub } from './agent-hub.js';
import type { CommandService } from './command-service.js';
import { allocationParams, commandParams, enqueueCommandBody } from './schemas.js';

export function commandRoutes(
  api: Api,
  deps: { commands: CommandService; allocations: AllocationsService; hub: AgentHub },
): void {
  const { commands, allocations, hub } = deps;
  api.route(
    {
      method: 'post',
      path: '/api/v1/clients/allocations/:id/revoke',
      summary: "Revoke the allocation's agent for good (a stolen or replaced router or agent box)",
      tags: ['allocations'],
      auth: ['client'],
      params: allocationParams,
    },
    async (_ctx, { params, principal }) => {
      await allocations.revoke(principal!.tenantId, params.id);
      await hub.revoked(params.id);
      return { success: true, data: await allocations.get(principal!.tenantId, params.id) };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/v1/clients/allocations/:id/commands',
      summary: "Queue a read-only catalogue command for the allocation's agent",
      tags: ['allocations'],
      auth: ['client'],
      params: allocationParams,
      body: enqueueCommandBody,
      status: 202,
    },
    async (_ctx, { params, body, principal }) => {
      if (changesRouter(body.name)) {
        throw new AppError(
          'COMMAND_NOT_ALLOWED',
          `${body.name} changes the router; it runs only through the module that guards it`,
          { details: { command: body.name } },
        );
      }
      return {
        success: true,
        data: await commands.enqueue(principal!.tenantId, params.id, body.name, body.params, {
          ...(body.timeout_seconds !== undefined ? { timeoutMs: body.timeout_seconds * 1000 } : {}),
        }),
      };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/clients/allocations/:id/commands/:commandId',
      summary: 'A command with its state, output and fault',
      tags: ['allocations'],
      auth: ['client'],
      params: commandParams,
    },
    async (_ctx, { params, principal }) => {
      const command = await commands.get(principal!.tenantId, params.commandId);
      if (command.allocation_id !== params.id)
        throw new AppError('COMMAND_NOT_FOUND', 'No command with this id');
      return { success: true, data: command };
    },
  );
}
