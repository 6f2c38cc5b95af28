// The inbox of the calling account and its push tokens. Every account kind has an inbox; the
// RADIUS events (docs/api/migration.md, Events and jobs) go to clients (managers).
import type { Api } from '../../http/api.js';
import { deviceBody, emptyBody, inboxQuery, notificationParams } from './schemas.js';
import type { NotificationsService } from './service.js';

const BASE = '/api/v1/notifications';
const tags = ['notifications'];
const auth = ['client', 'technician', 'partner', 'admin'] as const;

export function notificationsRoutes(api: Api, deps: { notifications: NotificationsService }): void {
  const { notifications } = deps;
  api.route(
    {
      method: 'get',
      path: BASE,
      summary: 'The inbox, newest first, with the number of unread notifications',
      tags,
      auth,
      query: inboxQuery,
    },
    async (_ctx, { query, principal }) => ({
      success: true,
      ...(await notifications.inbox(principal!.subjectId, query)),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/read-all`,
      summary: 'Mark every notification of the inbox read',
      tags,
      auth,
      body: emptyBody,
    },
    async (_ctx, { principal }) => ({
      success: true,
      updated: await notifications.markAllRead(principal!.subjectId),
      unread_count: await notifications.unreadCount(principal!.subjectId),
    }),
  );

  api.route(
    {
      method: 'post',
      path: `${BASE}/:id/read`,
      summary: 'Mark one notification read (a notification already read keeps its read time)',
      tags,
      auth,
      params: notificationParams,
      body: emptyBody,
    },
    async (_ctx, { params, principal }) => ({
      success: true,
      data: await notifications.markRead(principal!.subjectId, params.id),
      unread_count: await notifications.unreadCount(principal!.subjectId),
    }),
  );

  api.route(
    {
      method: 'put',
      path: `${BASE}/devices`,
      summary: "Register the app's push token for the calling account",
      tags,
      auth,
      body: deviceBody,
    },
    async (_ctx, { body, principal }) => ({
      success: true,
      data: await notifications.registerDevice(principal!.subjectId, body.token, body.platform),
    }),
  );
}
