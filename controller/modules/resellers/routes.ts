// The reseller routes under /v1/radius (rules: docs/api/resellers.md). Answers put their fields
// beside `success` (as the token, topology and migration answers do), no `data` wrapper.
import type { Context } from 'koa';
import { AppError } from '../../core/app-error.js';
import type { Api } from '../../http/api.js';
import type { Principal, ResellerPrincipal } from '../../http/principal.js';
import type { ResellersService } from './service.js';
import {
  batchBody,
  createResellerBody,
  desktopToolBody,
  idempotencyKey,
  pageQuery,
  topupBody,
  updateResellerBody,
  usernameParam,
  vouchersQuery,
} from './schemas.js';

const BASE = '/v1/radius';
const tags = ['resellers'];

export function resellersRoutes(api: Api, deps: { resellers: ResellersService }): void {
  const { resellers } = deps;
  // Manager routes need a client token and an active RADIUS licence; a reseller's token admits it.
  const asReseller = (principal: Principal | null) => principal as ResellerPrincipal;

  api.route(
    {
      method: 'post',
      path: `${BASE}/resellers`,
      summary: 'Create a reseller',
      tags,
      auth: ['client'],
      limiter: 'money',
      licence: 'RADIUS',
      body: createResellerBody,
      status: 201,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      reseller: await resellers.create(principal!.tenantId, body),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/resellers`,
      summary: 'List resellers (paginated)',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      query: pageQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      resellers: await resellers.list(principal!.tenantId, query.limit, query.offset),
      limit: query.limit,
      offset: query.offset,
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/resellers/self`,
      summary: 'The token holder with its balance and ten latest transactions',
      tags,
      auth: ['reseller'],
    },
    async (_ctx, { principal }) => ({ success: true, ...(await resellers.self(asReseller(principal))) }),
  );

  api.route(
    {
      method: 'put',
      path: `${BASE}/resellers/:username`,
      summary: 'Change caps, commission or suspension (never the balance)',
      tags,
      auth: ['client'],
      limiter: 'money',
      licence: 'RADIUS',
      params: usernameParam,
      body: updateResellerBody,
    },
    async (_ctx, { params, body, principal }) => {
      const tenant = principal!.tenantId;
      if (body.balance !== undefined) {
        throw new AppError(
          'BALANCE_NOT_EDITABLE',
          'The balance cannot be changed here; credit it with a top-up',
        );
      }
      return { success: true, reseller: await resellers.update(tenant, params.username, body) };
    },
  );

  api.route(
    {
      method: 'delete',
      path: `${BASE}/resellers/:username`,
      summary: 'Soft-delete a reseller',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      params: usernameParam,
    },
    async (_ctx, { params, principal }) => {
      await resellers.remove(principal!.tenantId, params.username);
      return { success: true };
    },
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/resellers/:username/token`,
      summary: 'Issue a reseller token (365 days)',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      params: usernameParam,
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      ...(await resellers.issueToken(principal!.tenantId, params.username)),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/resellers/:username/topup`,
      summary: 'Credit the balance (the only credit path); honours Idempotency-Key',
      tags,
      auth: ['client'],
      limiter: 'money',
      licence: 'RADIUS',
      params: usernameParam,
      body: topupBody,
    },
    async (ctx, { params, body, principal }) => {
      const tenant = principal!.tenantId;
      const result = await resellers.topup(tenant, params.username, body.amount, body.reason, headerKey(ctx));
      return { success: true, ...result };
    },
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/resellers/:username/transactions`,
      summary: 'Ledger lines, newest first',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      params: usernameParam,
      query: pageQuery,
    },
    async (_ctx, { params, query, principal }) => ({
      success: true,
      transactions: await resellers.transactions(
        principal!.tenantId,
        params.username,
        query.limit,
        query.offset,
      ),
      limit: query.limit,
      offset: query.offset,
    }),
  );

  api.route(
    {
      method: 'put',
      path: `${BASE}/resellers/:username/desktop_tool`,
      summary: 'Record the desktop-tool intent (the router account is provisioned by the app)',
      tags,
      auth: ['client'],
      licence: 'RADIUS',
      params: usernameParam,
      body: desktopToolBody,
    },
    async (_ctx, { params, body, principal }) => ({
      success: true,
      desktop_tool: await resellers.setDesktopTool(principal!.tenantId, params.username, body),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/vouchers/batch`,
      summary: 'A reseller creates a batch of tickets',
      tags,
      auth: ['reseller'],
      limiter: 'money',
      body: batchBody,
      status: 201,
    },
    async (_ctx, { body, principal }) => {
      const result = await resellers.createBatch(asReseller(principal), body);
      return {
        success: true,
        count: result.tickets.length,
        cost: result.cost,
        balance: result.balance,
        transaction: result.transaction,
        vouchers: result.tickets,
      };
    },
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/vouchers`,
      summary: 'Tickets; a reseller token sees only its own',
      tags,
      auth: ['client', 'reseller'],
      licence: 'RADIUS',
      query: vouchersQuery,
    },
    async (_ctx, { query, principal }) => {
      const tenant = principal!.tenantId;
      // With a reseller token the identity is forced: a `reseller` in the query is ignored.
      const reseller = principal!.type === 'reseller' ? principal!.username : query.reseller;
      const tickets = await resellers.listVouchers(tenant, {
        reseller,
        status: query.status,
        limit: query.limit,
        offset: query.offset,
      });
      return {
        success: true,
        vouchers: tickets.map((t) => ({
          code: t.code,
          reseller_name: t.reseller_name,
          comment: t.comment,
          profile_id: t.profile_id,
          status: t.status,
          created_at: t.created_at,
          used_at: t.used_at,
        })),
        limit: query.limit,
        offset: query.offset,
      };
    },
  );
}

function headerKey(ctx: Context): string | undefined {
  const raw = ctx.get('idempotency-key');
  if (!raw) return undefined;
  const parsed = idempotencyKey.safeParse(raw);
  if (!parsed.success)
    throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must hold 1 to 128 characters');
  return parsed.data;
}
