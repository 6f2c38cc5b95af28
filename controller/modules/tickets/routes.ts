import type { Api } from '../../http/api.js';
import type { ProfilesService } from './profiles-service.js';
import type { TicketsService } from './service.js';
import type { TicketStatus } from './tables.js';
import {
  createTicketsBody,
  listTicketsQuery,
  patchTicketBody,
  profileBody,
  profileParams,
  ticketParams,
} from './schemas.js';

/** The manager's profile and ticket routes: client JWT and an active RADIUS licence. */
export function ticketsRoutes(api: Api, deps: { tickets: TicketsService; profiles: ProfilesService }): void {
  const { tickets, profiles } = deps;

  api.route(
    {
      method: 'get',
      path: '/api/v1/radius/profiles',
      summary: 'Hotspot profiles with their price, limits and validity',
      tags: ['radius'],
      auth: ['client'],
      licence: 'RADIUS',
    },
    async (_ctx, { principal }) => ({
      success: true,
      data: await profiles.listProfiles(principal!.tenantId),
    }),
  );

  api.route(
    {
      method: 'put',
      path: '/api/v1/radius/profiles/:name',
      summary: "Set a profile's price, data limit, time limit, validity or rate limit (creates it if absent)",
      tags: ['radius'],
      auth: ['client'],
      licence: 'RADIUS',
      params: profileParams,
      body: profileBody,
    },
    async (_ctx, { principal, params, body }) => {
      const clientId = principal!.tenantId;
      return {
        success: true,
        data: await profiles.setProfile(clientId, params.name, {
          price_xof: body.price,
          data_limit_bytes: body.data_limit,
          time_limit_seconds: body.time_limit,
          validity_seconds: body.validity,
          rate_limit: body.rate_limit,
        }),
      };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/v1/radius/tickets',
      summary: 'Create a batch of tickets of one profile',
      limiter: 'money',
      tags: ['radius'],
      auth: ['client'],
      licence: 'RADIUS',
      body: createTicketsBody,
      status: 201,
    },
    async (_ctx, { principal, body }) => {
      const clientId = principal!.tenantId;
      const created = await tickets.createTickets(clientId, {
        profileId: body.profile_id,
        quantity: body.quantity,
        comment: body.comment ?? null,
      });
      return { success: true, data: { count: created.length, tickets: created } };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/radius/tickets',
      summary: 'Tickets, newest first (DELETED only when asked for by status)',
      tags: ['radius'],
      auth: ['client'],
      licence: 'RADIUS',
      query: listTicketsQuery,
    },
    async (_ctx, { principal, query }) => {
      const clientId = principal!.tenantId;
      const data = await tickets.listTickets(clientId, {
        ...(query.status ? { status: query.status as TicketStatus } : {}),
        limit: query.limit,
        offset: query.offset,
      });
      return { success: true, data, limit: query.limit, offset: query.offset };
    },
  );

  api.route(
    {
      method: 'patch',
      path: '/api/v1/radius/tickets/:code',
      summary: 'Suspend (DISABLED), re-enable (ACTIVE) or delete (DELETED) a ticket',
      tags: ['radius'],
      auth: ['client'],
      licence: 'RADIUS',
      params: ticketParams,
      body: patchTicketBody,
    },
    async (_ctx, { principal, params, body }) => {
      const clientId = principal!.tenantId;
      return { success: true, data: await tickets.setTicketStatus(clientId, params.code, body.status) };
    },
  );
}
