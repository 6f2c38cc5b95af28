// The RADIUS topology and enrolment routes under /api/v1/radius (rules: docs/api/nas.md). Client
// token, tenant from the token, RADIUS licence active. Answers carry their fields beside `success`
// (no `data` wrapper), and the header X-Contract-Version: 1.0.
import type { Context } from 'koa';
import type { Api } from '../../http/api.js';
import type { Principal } from '../../http/principal.js';
import { enrolBodyDoc, parseEnrolBody } from './schemas.js';
import type { NasService } from './service.js';

const BASE = '/api/v1/radius';
const tags = ['nas'];
/** Version of the topology contract, sent as the header X-Contract-Version on every answer. */
export const CONTRACT_VERSION = '1.0';

export function nasRoutes(api: Api, deps: { nas: NasService }): void {
  const { nas } = deps;
  const tenant = (ctx: Context, principal: Principal | null): string => {
    ctx.set('X-Contract-Version', CONTRACT_VERSION);
    return principal!.tenantId;
  };
  const auth = ['client'] as const;

  api.route(
    {
      method: 'get',
      path: `${BASE}/topology`,
      summary: "The client's RADIUS routers: the PRIMARY, the MEMBERs and the anomalies",
      tags,
      auth,
      licence: 'RADIUS',
    },
    async (ctx, { principal }) => ({ success: true, ...(await nas.topologyAnswer(tenant(ctx, principal))) }),
  );

  api.route(
    {
      method: 'put',
      path: `${BASE}/nas/:nasId/primary`,
      summary: 'Make an active NAS the PRIMARY (the previous one becomes a MEMBER, atomically)',
      tags,
      auth,
      licence: 'RADIUS',
    },
    async (ctx, { params, principal }) => {
      const clientId = tenant(ctx, principal);
      const { nasId } = params as { nasId: string };
      const outcome = await nas.promote(clientId, nasId);
      return {
        success: true,
        nas_id: nasId,
        role: 'PRIMARY',
        previous_primary_nas_id: outcome.previousPrimaryId,
        changed: outcome.changed,
      };
    },
  );

  api.route(
    {
      method: 'delete',
      path: `${BASE}/nas/:nasId`,
      summary: 'Delete a NAS (soft); not the PRIMARY while active members remain',
      tags,
      auth,
      licence: 'RADIUS',
    },
    async (ctx, { params, principal }) => {
      const clientId = tenant(ctx, principal);
      const removed = await nas.remove(clientId, (params as { nasId: string }).nasId);
      return { success: true, nas_id: removed.id, status: 'DELETED', previous_role: removed.role };
    },
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/nas`,
      summary: 'Enrol a router as a RADIUS NAS (server-applied, or app_apply: the app applies the script)',
      tags,
      auth,
      licence: 'RADIUS',
      body: enrolBodyDoc,
      status: 201,
    },
    async (ctx, { principal }) => {
      const clientId = tenant(ctx, principal);
      const input = parseEnrolBody(ctx.request.body);
      return { success: true, ...(await nas.enrol(clientId, input)) };
    },
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/nas/:nasId/provisioning`,
      summary: 'The RouterOS provisioning script of a NAS (holds its RADIUS secret)',
      tags,
      auth,
      licence: 'RADIUS',
    },
    async (ctx, { params, principal }) => {
      const clientId = tenant(ctx, principal);
      // The script holds the secret: no cache may keep it.
      ctx.set('Cache-Control', 'no-store');
      return { success: true, ...(await nas.provisioning(clientId, (params as { nasId: string }).nasId)) };
    },
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/nas/:nasId/verify`,
      summary: "Check the router's RADIUS set-up through its agent; a passing PENDING NAS becomes ACTIVE",
      tags,
      auth,
      licence: 'RADIUS',
    },
    async (ctx, { params, principal }) => {
      const clientId = tenant(ctx, principal);
      return { success: true, ...(await nas.verify(clientId, (params as { nasId: string }).nasId)) };
    },
  );
}
