// Migration routes (administrators), under /api/v1/radius/admin/migration (docs/api/migration.md).
import type { Api } from '../../http/api.js';
import { allocationParams, migrationBody, returnBody } from './schemas.js';
import type { MigrationService } from './service.js';

const BASE = '/api/v1/radius/admin/migration';
const tags = ['migration'];
const auth = ['admin'] as const;

export function migrationRoutes(api: Api, deps: { migration: MigrationService }): void {
  const { migration } = deps;
  api.route(
    {
      method: 'get',
      path: `${BASE}/:allocationId/inventaire`,
      summary: 'Read-only inventory of a router before its migration: may it move to RADIUS, and if not, why',
      tags,
      auth: [...auth],
      params: allocationParams,
    },
    async (_ctx, { params }) => ({ success: true, ...(await migration.inventory(params.allocationId)) }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/:allocationId`,
      summary:
        'Migrate a router to RADIUS: backup, import, configuration, removal of local accounts (with proofs)',
      tags,
      auth: [...auth],
      params: allocationParams,
      body: migrationBody,
    },
    async (_ctx, { params, body }) => migration.migrate(params.allocationId, body.retirer_local),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/:allocationId/retour`,
      summary: 'Return a router to local accounts: profiles and accounts from the backup, RADIUS cut last',
      tags,
      auth: [...auth],
      params: allocationParams,
      body: returnBody,
    },
    async (_ctx, { params, body }) => migration.returnToLocal(params.allocationId, body.couper_radius),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/:allocationId`,
      summary: "A router's migration: status, steps of the last run, first real authentication",
      tags,
      auth: [...auth],
      params: allocationParams,
    },
    async (_ctx, { params }) => ({ success: true, migration: await migration.state(params.allocationId) }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/:allocationId/confirmation`,
      summary: 'Confirm an armed migration by hand once a real authentication went through the router',
      tags,
      auth: [...auth],
      params: allocationParams,
    },
    async (_ctx, { params }) => ({ success: true, migration: await migration.confirm(params.allocationId) }),
  );
}
