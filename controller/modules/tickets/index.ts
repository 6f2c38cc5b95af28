// The tickets module's public surface: other modules and the composition root import from here only.
export { TicketsService, type TicketView } from './service.js';
export { ProfilesService } from './profiles-service.js';
export { RouterImportService } from './router-import-service.js';
export { TicketAuthService } from './ticket-auth-service.js';
export { decideAuth, type AuthTicket, type Grant, type RejectReason } from './ticket-rules.js';
export { ticketsModule } from './module.js';
export type { TicketsTables } from './tables.js';
export { normaliseUsername, sellerOf } from './reseller-name.js';
export { TICKET_STATEMENT_SIZES } from './ticket-statements.js';
