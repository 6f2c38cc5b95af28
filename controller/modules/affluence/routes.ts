// GET /api/v1/radius/affluence: a client reads its own affluence. A client token is enough: no
// RADIUS licence is required, so a lapsed licence never hides the client's own history.
import type { Api } from '../../http/api.js';
import { affluenceQuery } from './schemas.js';
import type { AffluenceService } from './service.js';

export function affluenceRoutes(api: Api, deps: { affluence: AffluenceService }): void {
  const { affluence } = deps;
  api.route(
    {
      method: 'get',
      path: '/api/v1/radius/affluence',
      summary: 'Connections, devices, refusals, peak hour and looping devices of one UTC day',
      tags: ['affluence'],
      auth: ['client'],
      query: affluenceQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      ...(await affluence.report(principal!.tenantId, { date: query.date, nasId: query.nas_id })),
    }),
  );
}
