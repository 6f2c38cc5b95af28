import type { Api } from '../../http/api.js';
import { allocationParams, createAllocationBody } from './schemas.js';
import type { AllocationsService } from './service.js';

export function allocationsRoutes(api: Api, deps: { allocations: AllocationsService }): void {
  const { allocations } = deps;
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
}
