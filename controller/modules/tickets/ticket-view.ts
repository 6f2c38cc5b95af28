// A ticket as it leaves the tickets module.
import type { RadiusTicketsTable, TicketStatus } from './tables.js';

export interface TicketView {
  code: string;
  password: string;
  /** The profile as the ticket's creator sent it (its id or its name); the id otherwise. */
  profile_id: string;
  profile_name: string;
  status: TicketStatus;
  comment: string | null;
  reseller_name: string | null;
  created_at: string;
  used_at: string | null;
  expires_at: string | null;
  first_nas_id: string | null;
  bytes_used: number;
  seconds_used: number;
  /** The ticket's own quotas (an imported router user's); null where its profile's apply. */
  data_limit_bytes: number | null;
  time_limit_seconds: number | null;
}

export const ticketView = (t: RadiusTicketsTable, profileName: string): TicketView => ({
  code: t.code,
  password: t.password,
  profile_id: t.profile_ref ?? t.profile_id,
  profile_name: profileName,
  status: t.status,
  comment: t.comment,
  reseller_name: t.reseller_name,
  created_at: t.created_at,
  used_at: t.used_at,
  expires_at: t.expires_at,
  first_nas_id: t.first_nas_id,
  bytes_used: Number(t.bytes_used),
  seconds_used: Number(t.seconds_used),
  data_limit_bytes: t.data_limit_bytes === null ? null : Number(t.data_limit_bytes),
  time_limit_seconds: t.time_limit_seconds === null ? null : Number(t.time_limit_seconds),
});
