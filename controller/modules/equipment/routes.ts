// Client equipment under /api/v1/clients/topology (rules: docs/api/equipment.md). The tenant is the
// credential's; another tenant's device answers 404 DEVICE_NOT_FOUND on every route.
import { AppError } from '../../core/app-error.js';
import type { Clock } from '../../core/clock.js';
import type { Api } from '../../http/api.js';
import { accessSession, type AccessSessionOptions } from './access-link.js';
import type { DeviceChecks } from './device-checks.js';
import { EQUIPMENT_BASE as BASE } from './device-view.js';
import { createBody, deviceParams, monitorBody, scanQuery, syncBody, webAccessBody } from './schemas.js';
import type { EquipmentService } from './service.js';
import type { WebAccessService } from './web-access.js';

const tags = ['equipment'];

export function equipmentRoutes(
  api: Api,
  deps: {
    equipment: EquipmentService;
    checks: DeviceChecks;
    clock: Clock;
    access: AccessSessionOptions;
    webAccess: WebAccessService;
  },
): void {
  const { equipment, checks, clock, access, webAccess } = deps;

  api.route(
    {
      method: 'get',
      path: `${BASE}/scan`,
      summary: "The router's LAN through its agent: devices a client may declare, sorted by address",
      tags,
      auth: ['client'],
      query: scanQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      data: await equipment.scan(principal!.tenantId, query.router_serial, query.all),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/devices`,
      summary: 'Declare a device behind a router; the backend places its access when the router is reachable',
      tags,
      auth: ['client'],
      body: createBody,
      status: 201,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await equipment.create(principal!.tenantId, body),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/sync`,
      summary: 'Declare several devices of one router after a scan (those already declared are skipped)',
      tags,
      auth: ['client'],
      body: syncBody,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await equipment.sync(principal!.tenantId, body),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/devices`,
      summary: "The client's devices with their router link (vpn_health) and hardware anchoring",
      tags,
      auth: ['client'],
    },
    async (_ctx, { principal }) => ({ success: true, ...(await equipment.list(principal!.tenantId)) }),
  );

  api.route(
    {
      method: 'delete',
      path: `${BASE}/devices/:id`,
      summary: 'Remove a device (its rule and probe too when the router is reachable)',
      tags,
      auth: ['client'],
      params: deviceParams,
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      data: await equipment.remove(principal!.tenantId, params.id),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/devices/:id/verify`,
      summary: 'Read the router for this device: six checks and the first failing reason',
      tags,
      auth: ['client'],
      params: deviceParams,
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      data: await checks.verify(await equipment.device(principal!.tenantId, params.id)),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/devices/:id/repair`,
      summary: 'Diagnose, fix what the router lacks, verify again (200 in every case)',
      tags,
      auth: ['client'],
      params: deviceParams,
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      data: await checks.repair(await equipment.device(principal!.tenantId, params.id)),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/devices/:id/monitor`,
      summary: "Turn the device's probe on or off",
      tags,
      auth: ['client'],
      params: deviceParams,
      body: monitorBody,
    },
    async (_ctx, { params, body, principal }) => ({
      success: true,
      data: await equipment.monitor(principal!.tenantId, params.id, body.enabled),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/devices/:id/access-session`,
      summary: "A signed link (300 s) to the device's own host, which serves its whole interface",
      tags,
      auth: ['client'],
      params: deviceParams,
    },
    async (_ctx, { params, principal }) => {
      if (!access.domain) {
        throw new AppError(
          'ACCESS_LINK_UNAVAILABLE',
          'Signed device links are not configured on this server',
        );
      }
      // the same checks as the relay: only a device that can be opened now gets a link
      await equipment.relayTarget(principal!.tenantId, params.id);
      const now = Math.floor(clock.now().getTime() / 1000);
      return { success: true, data: accessSession(params.id, principal!.tenantId, now, access) };
    },
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/web-access`,
      summary:
        "Open the router's web UI, WinBox, API and SSH ports on {vpn_host} for the caller's address, until idle",
      tags,
      auth: ['client'],
      body: webAccessBody,
    },
    async (ctx, { body, principal }) => ({
      success: true,
      data: await webAccess.grant(principal!.tenantId, body.router_serial, {
        source: ctx.ip,
        host: ctx.hostname,
      }),
    }),
  );
}
