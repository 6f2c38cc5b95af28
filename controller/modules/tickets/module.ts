import { defineModule } from '../define-module.js';
import * as m0013 from './migrations/0013-ticket-profile-ref.js';
import { ProfilesService } from './profiles-service.js';
import { RouterImportService } from './router-import-service.js';
import { ticketsRoutes } from './routes.js';
import { TicketsService } from './service.js';
import { TicketAuthService } from './ticket-auth-service.js';

export const ticketsModule = defineModule({
  name: 'tickets',
  tables: ['radius_profiles', 'radius_tickets'],
  migrations: { '0013-ticket-profile-ref': m0013 },
  provides: ['tickets', 'profiles', 'ticketImport', 'ticketAuth'],
  build: ({ db, caps, clock }) => {
    const tickets = new TicketsService(db, caps, clock);
    const profiles = new ProfilesService(db, caps, clock);
    return {
      services: {
        tickets,
        profiles,
        ticketImport: new RouterImportService(db, caps, clock, profiles),
        ticketAuth: new TicketAuthService(db),
      },
      routes: (api) => ticketsRoutes(api, { tickets, profiles }),
    };
  },
});
