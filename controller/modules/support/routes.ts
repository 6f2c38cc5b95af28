// The technician hub's routes (rules: docs/api/support.md). Free missions are posted on the exact
// path `/support/api/tickets`; everything else sits under /api/v1/support, and the administrators'
// expert route under /api/v1/admin/support.
import { z } from 'zod';
import type { Clock } from '../../core/clock.js';
import type { Api } from '../../http/api.js';
import {
  accountParams,
  closeBody,
  directoryQuery,
  expertBody,
  idParams,
  missionBody,
  noteBody,
  openMissionsQuery,
  presenceBody,
  profileBody,
  reviewBody,
  statusFilter,
  superviseBody,
  type ExpertInput,
} from './schemas.js';
import type { SupportService } from './service.js';

const BASE = '/api/v1/support';
const tags = ['support'];

export function supportRoutes(api: Api, deps: { support: SupportService; clock: Clock }): void {
  const { support } = deps;

  api.route(
    {
      method: 'get',
      path: `${BASE}/professionals`,
      summary: 'Directory of active certified experts, best reputation first',
      tags,
      auth: 'public',
      query: directoryQuery,
    },
    async (_ctx, { query }) => {
      const status = statusFilter(query.status);
      return { success: true, ...(await support.directory({ ...query, status })) };
    },
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/professionals/:id`,
      summary: 'One expert with bio, tier, votes and the 10 latest reviews (delisted ones too)',
      tags,
      auth: 'public',
      params: z.object({ id: z.string() }),
    },
    async (_ctx, { params }) => ({ success: true, data: await support.professional(params.id) }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/presence`,
      summary: 'Heartbeat (at least every 60 s) or a clean exit with online false',
      tags,
      auth: ['technician'],
      body: presenceBody,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await support.presence(principal!.subjectId, body.online),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/progression`,
      summary: 'Tier, next tier, facts, requirements, what remains, revenue shares, quota',
      tags,
      auth: ['technician'],
    },
    async (_ctx, { principal }) => ({ success: true, data: await support.progression(principal!.subjectId) }),
  );

  api.route(
    {
      method: 'patch',
      path: `${BASE}/profile`,
      summary: "The technician's own directory profile (flags and tier stay with administrators)",
      tags,
      auth: ['technician'],
      body: profileBody,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await support.updateOwnProfile(principal!.subjectId, body),
    }),
  );

  api.route(
    {
      method: 'put',
      path: '/api/v1/admin/support/experts/:accountId',
      summary:
        "Creates or changes a technician's expert record: profile, is_active, is_certified, is_internal, tier",
      tags,
      auth: ['admin'],
      params: accountParams,
      body: expertBody,
    },
    async (ctx, { params, body }) => {
      const { created, expert } = await support.setExpert(params.accountId, body as ExpertInput);
      ctx.status = created ? 201 : 200;
      ctx.body = { success: true, data: expert };
      return undefined;
    },
  );

  api.route(
    {
      method: 'post',
      path: '/support/api/tickets',
      summary: 'Posts a free mission (price_amount and payment_status in the body are ignored)',
      tags,
      auth: ['client'],
      body: missionBody,
      status: 201,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await support.createMission(principal!.tenantId, {
        subject: body.subject,
        ...(body.description !== undefined ? { description: body.description } : {}),
        category: body.category,
        is_urgent: body.is_urgent,
      }),
    }),
  );

  api.route(
    {
      method: 'get',
      path: `${BASE}/tickets`,
      summary: 'Open missions nobody took yet, oldest first (never one awaiting payment)',
      tags,
      auth: ['technician'],
      query: openMissionsQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      data: await support.openMissions(principal!.subjectId, query.limit),
    }),
  );

  missionRoutes(api, support);
}

function missionRoutes(api: Api, support: SupportService): void {
  const route = (method: 'get' | 'post', action: string, summary: string) => ({
    method,
    path: `${BASE}/tickets/:id/${action}`,
    summary,
    tags,
    params: idParams,
  });

  api.route(
    {
      ...route('post', 'claim', 'Takes an open mission: the first claim wins, the others get 409'),
      auth: ['technician'],
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      data: await support.claim(principal!.subjectId, params.id),
    }),
  );

  api.route(
    {
      ...route('post', 'close', 'The assigned technician closes the mission, resolved or not'),
      auth: ['technician'],
      body: closeBody,
    },
    async (_ctx, { params, body, principal }) => ({
      success: true,
      data: await support.close(principal!.subjectId, params.id, body.resolved),
    }),
  );

  api.route(
    {
      ...route('post', 'review', "The mission's client rates the technician who took it (once)"),
      auth: ['client'],
      body: reviewBody,
      status: 201,
    },
    async (_ctx, { params, body, principal }) => ({
      success: true,
      data: await support.review(principal!.tenantId, params.id, body),
    }),
  );

  api.route(
    {
      ...route('post', 'notes', 'A private note of the assigned technician'),
      auth: ['technician'],
      body: noteBody,
      status: 201,
    },
    async (_ctx, { params, body, principal }) => ({
      success: true,
      data: await support.addNote(principal!.subjectId, params.id, body.content),
    }),
  );

  api.route(
    { ...route('get', 'notes', "The assigned technician's notes, oldest first"), auth: ['technician'] },
    async (_ctx, { params, principal }) => ({
      success: true,
      data: await support.notes(principal!.subjectId, params.id),
    }),
  );

  api.route(
    {
      ...route('post', 'supervise', "A senior's verdict on a closed mission of another technician"),
      auth: ['technician'],
      body: superviseBody,
      status: 201,
    },
    async (_ctx, { params, body, principal }) => ({
      success: true,
      data: await support.supervise(principal!.subjectId, params.id, body),
    }),
  );
}
