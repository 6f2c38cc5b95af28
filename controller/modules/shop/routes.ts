// The ticket shop's routes (rules: docs/api/shop.md). Client token, tenant from the token; the
// readiness answers 200 whatever the shop lacks (the licence included), so no route here is gated
// by a licence: readiness names what is missing.
import type { Context } from 'koa';
import { z } from 'zod';
import { AppError } from '../../core/app-error.js';
import type { Api } from '../../http/api.js';
import type { Principal } from '../../http/principal.js';
import type { AccountsService } from '../accounts/index.js';
import {
  clientParam,
  hotspotProfilesQuery,
  storeConfigBody,
  syncProfilesBody,
  walletFreezeBody,
  withdrawalBody,
} from './schemas.js';
import type { ShopService } from './service.js';

const tags = ['shop'];
const auth = ['client'] as const;
const idempotencyKey = z.string().min(1).max(128);

export function shopRoutes(
  api: Api,
  deps: { shop: ShopService; accounts: Pick<AccountsService, 'get'> },
): void {
  const { shop } = deps;
  const tenant = (principal: Principal | null): string => principal!.tenantId;

  api.route(
    {
      method: 'get',
      path: '/api/v1/clients/store/profiles',
      summary: 'The shop profile entries the app pushed (empty until a first push)',
      tags,
      auth,
    },
    async (_ctx, { principal }) => ({ success: true, data: await shop.listProfiles(tenant(principal)) }),
  );

  api.route(
    {
      method: 'post',
      path: '/api/v1/clients/store/profiles/sync',
      summary: 'Push shop profile entries: upsert what is named, forget `action: delete` entries',
      tags,
      auth,
      body: syncProfilesBody,
    },
    async (_ctx, { body, principal }) => {
      const counts = await shop.pushProfiles(tenant(principal), body.nas_id, body.profiles);
      return { success: true, message: 'Profils de la boutique synchronisés', ...counts };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/clients/router/hotspot-profiles',
      summary: "The router's hotspot profiles: read through its agent with force=true, else the last read",
      tags,
      auth,
      query: hotspotProfilesQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      ...(await shop.hotspotProfiles(tenant(principal), query.allocation_id, query.force === 'true')),
    }),
  );

  api.route(
    { method: 'get', path: '/api/v1/clients/store-config', summary: 'The store configuration', tags, auth },
    async (_ctx, { principal }) => ({ success: true, data: await shop.getStoreConfig(tenant(principal)) }),
  );

  for (const [method, mode] of [
    ['put', 'replace'],
    ['patch', 'merge'],
  ] as const) {
    api.route(
      {
        method,
        path: '/api/v1/clients/store-config',
        summary:
          mode === 'replace'
            ? 'Replace the store configuration (the merchant key changes only when named)'
            : 'Change the named fields of the store configuration (JSON Merge Patch on nested objects)',
        tags,
        auth,
        body: storeConfigBody,
      },
      async (_ctx, { body, principal }) => ({
        success: true,
        data: await shop.saveStoreConfig(tenant(principal), body, mode),
      }),
    );
  }

  api.route(
    {
      method: 'get',
      path: '/api/v1/clients/store/ticketshop/readiness',
      summary: 'Whether the shop can sell and deliver: always 200, with all seven checks',
      tags,
      auth,
    },
    async (_ctx, { principal }) => ({ success: true, data: await shop.readiness(tenant(principal)) }),
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/store/ticketshop/metrics',
      summary: 'Shop sales, balance, accounting (day, week, month, total) and withdrawal_status',
      tags,
      auth,
    },
    async (_ctx, { principal }) => ({ success: true, data: await shop.wallet.metrics(tenant(principal)) }),
  );

  api.route(
    {
      method: 'post',
      path: '/api/v1/store/ticketshop/withdrawals',
      summary: 'Request a withdrawal of the shop balance (Idempotency-Key required)',
      tags,
      auth,
      limiter: 'money',
      body: withdrawalBody,
      status: 201,
    },
    async (ctx, { body, principal }) => {
      const key = headerKey(ctx);
      const p = principal as Extract<Principal, { type: 'account' }>;
      const out = await shop.wallet.requestWithdrawal(tenant(principal), p.accountId, key, body.amount);
      ctx.status = out.replayed ? 200 : 201;
      ctx.body = {
        success: true,
        data: { withdrawal: out.withdrawal, replayed: out.replayed, withdrawal_status: out.status },
      };
      return undefined;
    },
  );

  api.route(
    {
      method: 'put',
      path: '/api/v1/admin/shop/:clientId/withdrawals',
      summary: "Freeze or thaw a client's shop withdrawals",
      tags,
      auth: ['admin'],
      params: clientParam,
      body: walletFreezeBody,
    },
    async (_ctx, { params, body }) => {
      const client = await deps.accounts.get(params.clientId);
      if (!client || client.kind !== 'client')
        throw new AppError('CLIENT_NOT_FOUND', 'No client account with this id');
      return {
        success: true,
        data: await shop.wallet.setWithdrawalsEnabled(params.clientId, body.withdrawals_enabled),
      };
    },
  );
}

function headerKey(ctx: Context): string {
  const parsed = idempotencyKey.safeParse(ctx.get('idempotency-key'));
  if (!parsed.success) {
    throw new AppError('VALIDATION_ERROR', 'The Idempotency-Key header is required (1 to 128 characters)', {
      details: [{ field: 'Idempotency-Key', message: 'required, 1 to 128 characters' }],
    });
  }
  return parsed.data;
}
