import type { CommandService } from '../../hub/index.js';
import type { Api } from '../../http/api.js';
import { allocationParams, commandParams, createAllocationBody, enqueueCommandBody } from './schemas.js';
import type { AllocationsService } from './service.js';
import { AppError } from '../../core/app-error.js';

export function allocationsRoutes(
  api: Api,
  deps: { allocations: AllocationsService; commands: CommandService },
): void {
  const { allocations, commands } = deps;
  api.route(
    {
      method: 'post',
      path: '/api/v1/clients/allocations',
      summary: 'Create a router slot and its one-time agent enrolment code (24 h)',
      tags: ['allocations'],
      auth: ['client'],
      body: createAllocationBody,
      status: 201,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await allocations.create(principal!.tenantId, body),
    }),
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/clients/allocations',
      summary: "The calling client's allocations with their link state and router facts",
      tags: ['allocations'],
      auth: ['client'],
    },
    async (_ctx, { principal }) => ({ success: true, data: await allocations.list(principal!.tenantId) }),
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/clients/allocations/:id',
      summary: 'One allocation with its link state and router facts',
      tags: ['allocations'],
      auth: ['client'],
      params: allocationParams,
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      data: await allocations.get(principal!.tenantId, params.id),
    }),
  );

  api.route(
    {
      method: 'post',
      path: '/api/v1/clients/allocations/:id/commands',
      summary: "Queue a catalogue command for the allocation's agent",
      tags: ['allocations'],
      auth: ['client'],
      params: allocationParams,
      body: enqueueCommandBody,
      status: 202,
    },
    async (_ctx, { params, body, principal }) => ({
      success: true,
      data: await commands.enqueue(principal!.tenantId, params.id, body.name, body.params, {
        ...(body.timeout_seconds !== undefined ? { timeoutMs: body.timeout_seconds * 1000 } : {}),
      }),
    }),
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
