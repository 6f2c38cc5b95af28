import { defineModule } from '../define-module.js';
import { ticketsRoutes } from './routes.js';
import { TicketsService } from './service.js';

export const ticketsModule = defineModule({
  name: 'tickets',
  tables: ['radius_profiles', 'radius_tickets'],
  provides: ['tickets'],
  build: ({ db, caps, clock }) => {
    const tickets = new TicketsService(db, caps, clock);
    return { services: { tickets }, routes: (api) => ticketsRoutes(api, { tickets }) };
  },
});
