// The local sales registry under /api/v1/radius/sales (paths and rules: docs/decisions.md). Every
// answer names its registry: it never adds up with platform sales or wallet movements.
import type { Api } from '../../http/api.js';
import { importBody, salesQuery, summaryQuery } from './schemas.js';
import { REGISTRY, type SalesService } from './service.js';

const BASE = '/api/v1/radius/sales';
const tags = ['sales'];

export function salesRoutes(api: Api, deps: { sales: SalesService }): void {
  const { sales } = deps;
  // The registry belongs to the RADIUS product (it is repatriated for the switch), like the reseller
  // routes: a client token with an active RADIUS licence.

  api.route(
    {
      method: 'post',
      path: `${BASE}/import`,
      summary:
        "Repatriate a router's local sales history through its agent (re-import adds only what is new)",
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      body: importBody,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      ...(await sales.import(principal!.tenantId, body.allocation_id, body.page_size)),
    }),
  );

  api.route(
    {
      method: 'get',
      path: BASE,
      summary: 'Sales records, newest first; undated ones last (paginated)',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      query: salesQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      registry: REGISTRY,
      sales: await sales.list(principal!.tenantId, query),
      limit: query.limit,
      offset: query.offset,
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/summary`,
      summary: 'Totals (VENTE money, CONNEXION usage, undated sales) and a monthly breakdown',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      query: summaryQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      ...(await sales.summary(principal!.tenantId, query.allocation_id, query.year)),
    }),
  );
}
