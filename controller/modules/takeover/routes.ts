// POST /v1/radius/resellers/takeover: the manager has the centre take over the resellers its
// router kept, without uploading anything (docs/api/resellers.md).
import { z } from 'zod';
import type { Api } from '../../http/api.js';
import type { TakeoverService } from './service.js';

export const takeoverBody = z.object({
  allocation_id: z.uuid({ message: 'allocation_id must be a UUID' }),
});

export function takeoverRoutes(api: Api, deps: { takeover: TakeoverService }): void {
  api.route(
    {
      method: 'post',
      path: '/v1/radius/resellers/takeover',
      limiter: 'money',
      summary: 'Take over the resellers, balances and last movements kept on a router (replayable)',
      tags: ['resellers'],
      auth: ['client'],
      licence: 'RADIUS',
      body: takeoverBody,
    },
    async (_ctx, { body, principal }) => {
      const tenant = principal!.tenantId;
      return { success: true, ...(await deps.takeover.run(tenant, body.allocation_id)) };
    },
  );
}
