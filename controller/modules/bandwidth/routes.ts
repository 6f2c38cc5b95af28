// The bandwidth programme under /api/v1/radius (rules: docs/api/bandwidth.md).
import type { Api } from '../../http/api.js';
import type { RateLimiter } from '../../http/rate-limiter.js';
import {
  activityQuery,
  impactQuery,
  nasParams,
  preferencesBody,
  programmeBody,
  reconcileQuery,
} from './schemas.js';
import type { BandwidthService } from './service.js';

const BASE = '/api/v1/radius/bandwidth';
const tags = ['bandwidth'];

export function bandwidthRoutes(
  api: Api,
  deps: { bandwidth: BandwidthService; programmeLimiter: RateLimiter },
): void {
  const { bandwidth, programmeLimiter } = deps;

  api.route(
    { method: 'get', path: `${BASE}/classes`, summary: 'Essential traffic classes', tags, auth: ['client'] },
    async () => ({ success: true, ...bandwidth.classes() }),
  );

  api.route(
    {
      method: 'put',
      path: `${BASE}/program`,
      summary: "Record a router's bandwidth programme (applied at the next reconciliation)",
      tags,
      auth: ['client'],
      // Shared with DELETE: 5 calls a minute per user.
      limiter: programmeLimiter,
      body: programmeBody,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      ...(await bandwidth.put(principal!.tenantId, principal!.subjectId, body)),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/program`,
      summary: "Every programme of the client's routers with desired and observed state, and throttled users",
      tags,
      auth: ['client'],
    },
    async (_ctx, { principal }) => ({ success: true, ...(await bandwidth.state(principal!.tenantId)) }),
  );

  api.route(
    {
      method: 'delete',
      path: `${BASE}/program/:nasId`,
      summary: "Disable a router's programme (recorded at once; the router is cleaned when reachable)",
      tags,
      auth: ['client'],
      limiter: programmeLimiter,
      params: nasParams,
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      ...(await bandwidth.disable(principal!.tenantId, principal!.subjectId, params.nasId)),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/activity`,
      summary: 'The programme journal, newest first (opaque cursor)',
      tags,
      auth: ['client'],
      query: activityQuery,
    },
    async (_ctx, { query, principal }) => {
      await bandwidth.requireEntitlement(principal!.tenantId);
      return { success: true, ...(await bandwidth.activity(principal!.tenantId, query)) };
    },
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/impact`,
      summary: 'What the cap saved: bridled against normal days',
      tags,
      auth: ['client'],
      query: impactQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      ...(await bandwidth.impact(principal!.tenantId, query.jours, query.nas_id)),
    }),
  );

  api.route(
    {
      method: 'put',
      path: `${BASE}/preferences`,
      summary: 'Bandwidth notifications: push on or off, quiet hours (router time)',
      tags,
      auth: ['client'],
      body: preferencesBody,
    },
    async (_ctx, { body, principal }) => {
      await bandwidth.requireEntitlement(principal!.tenantId);
      const changes = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
      return { success: true, preferences: await bandwidth.preferences.set(principal!.tenantId, changes) };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/radius/admin/bandwidth/fleet',
      summary: 'Fleet view of the bandwidth programmes',
      tags,
      auth: ['admin'],
    },
    async () => ({ success: true, ...(await bandwidth.fleet()) }),
  );

  api.route(
    {
      method: 'post',
      path: '/api/v1/radius/admin/bandwidth/reconcile',
      summary: 'Run one reconciliation pass now (oldest routers first)',
      tags,
      auth: ['admin'],
      query: reconcileQuery,
    },
    async (_ctx, { query }) => ({ success: true, ...(await bandwidth.reconcile(query.limite)) }),
  );
}
