import type { Api } from '../../http/api.js';
import type { CredentialsService } from './credentials-service.js';
import type { ProbeService } from './probe-service.js';
import type { RescueService } from './rescue-service.js';
import {
  allocationQuery,
  credentialsBody,
  operationParams,
  probeBody,
  rescueBody,
  resolveBody,
} from './schemas.js';
import type { RemoteAccessService } from './service.js';

const BASE = '/api/v1/clients/remote-access';

export function remoteAccessRoutes(
  api: Api,
  deps: {
    remoteAccess: RemoteAccessService;
    probes: ProbeService;
    rescue: RescueService;
    credentials: CredentialsService;
  },
): void {
  const { remoteAccess, probes, rescue, credentials } = deps;
  api.route(
    {
      method: 'post',
      path: `${BASE}/resolve`,
      summary: "The router's remote-access bundle; its slot found or made by router_serial",
      tags: ['remote-access'],
      auth: ['client'],
      body: resolveBody,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await remoteAccess.resolve(principal!.tenantId, body),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/management-probe`,
      summary: 'Proves a candidate channel; says whether the previous transport may be retired',
      tags: ['remote-access'],
      auth: ['client'],
      body: probeBody,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await probes.probe(principal!.tenantId, body),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/transport-attempts/:operationId`,
      summary: 'A management probe by its operation id',
      tags: ['remote-access'],
      auth: ['client'],
      params: operationParams,
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      data: await probes.attempt(principal!.tenantId, params.operationId),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/credentials`,
      summary: "Deposits the router's credentials: sealed, handed to the allocation's agent only",
      tags: ['remote-access'],
      auth: ['client'],
      body: credentialsBody,
      status: 201,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await credentials.deposit(principal!.tenantId, body),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/credentials`,
      summary: 'Where the deposited router credentials stand with the agent (never what they are)',
      tags: ['remote-access'],
      auth: ['client'],
      query: allocationQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      data: await credentials.status(principal!.tenantId, query.allocation_id),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/rescue`,
      summary: "Enables the router's Back To Home relay (DDNS first); its profile is read 25 s later",
      tags: ['remote-access'],
      auth: ['client'],
      body: rescueBody,
      status: 202,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await rescue.enable(principal!.tenantId, body.allocation_id),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/rescue`,
      summary: "The rescue relay's state on the allocation (never its profile)",
      tags: ['remote-access'],
      auth: ['client'],
      query: allocationQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      data: await rescue.status(principal!.tenantId, query.allocation_id),
    }),
  );
}
