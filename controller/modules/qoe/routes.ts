// Network-quality monitoring under /api/v1/radius/qoe (rules: docs/api/qoe.md). Control routes:
// client token, tenant from the token, RADIUS licence active. Telemetry: the NAS's bridge token only.
import type { Api } from '../../http/api.js';
import { actionParams, kickBody, preferencesBody, reportsQuery, telemetryBody } from './schemas.js';
import type { QoeService } from './service.js';

const BASE = '/api/v1/radius/qoe';
const tags = ['qoe'];

export function qoeRoutes(api: Api, deps: { qoe: QoeService }): void {
  const { qoe } = deps;

  api.route(
    {
      method: 'post',
      path: `${BASE}/telemetry`,
      summary: "One telemetry point of a NAS (header x-vpn-bridge-token, the NAS's own)",
      tags,
      auth: 'public',
      // A wrong token counts against the caller's address, as a wrong password does.
      limiter: 'credentials',
      body: telemetryBody,
      status: 202,
    },
    async (ctx, { body }) => ({
      success: true,
      ...(await qoe.telemetry(ctx.get('x-vpn-bridge-token') || undefined, body)),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/status`,
      summary: 'The latest point of each NAS and the NAS congested now',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
    },
    async (_ctx, { principal }) => ({ success: true, ...(await qoe.status(principal!.tenantId)) }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/usage`,
      summary: "Each NAS's WAN usage in its router's day, with the warning and acceleration flags",
      tags,
      auth: ['client'],
      licence: 'RADIUS',
    },
    async (_ctx, { principal }) => ({ success: true, ...(await qoe.usage(principal!.tenantId)) }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/preferences`,
      summary: 'The five network-quality notification preferences',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
    },
    async (_ctx, { principal }) => ({ success: true, ...(await qoe.preferences(principal!.tenantId)) }),
  );

  api.route(
    {
      method: 'put',
      path: `${BASE}/preferences`,
      summary: 'Change some of the five preferences (the others stay)',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      body: preferencesBody,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      ...(await qoe.setPreferences(principal!.tenantId, body)),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/reports`,
      summary: 'The daily reports, newest first',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      query: reportsQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      ...(await qoe.reports.list(principal!.tenantId, query.limit)),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/actions/kick`,
      summary:
        'Ask the router to end a hotspot session (POD_DISCONNECT); 202 RUNNING means recorded, not done',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      body: kickBody,
      status: 202,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      ...(await qoe.kicks.kick(principal!.tenantId, body)),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/actions/:id`,
      summary: 'One QoE action as the reconciler last judged it',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      params: actionParams,
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      ...(await qoe.kicks.get(principal!.tenantId, params.id)),
    }),
  );
}
