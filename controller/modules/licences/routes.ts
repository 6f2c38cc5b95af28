import type { Api } from '../../http/api.js';
import type { LicencesService } from './service.js';
import { grantBody } from './schemas.js';

export function licencesRoutes(api: Api, deps: { licences: LicencesService }): void {
  const { licences } = deps;
  api.route(
    {
      method: 'post',
      path: '/api/v1/admin/licences',
      summary: 'Grant one period of a plan to a client (administrators)',
      tags: ['licences'],
      auth: ['admin'],
      body: grantBody,
      status: 201,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await licences.grant(body.client_id, body.plan_code, principal!.subjectId),
    }),
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/licences/plans',
      summary: 'The licence catalogue',
      tags: ['licences'],
      auth: 'public',
    },
    async () => ({ success: true, data: await licences.listPlans() }),
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/clients/licences',
      summary: "The calling client's licences",
      tags: ['licences'],
      auth: ['client'],
    },
    async (_ctx, { principal }) => ({
      success: true,
      data: await licences.listForClient(principal!.tenantId),
    }),
  );
}
