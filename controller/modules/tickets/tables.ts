export type TicketStatus = 'ACTIVE' | 'USED' | 'EXHAUSTED' | 'DISABLED' | 'DELETED';
export const TICKET_STATUSES: readonly TicketStatus[] = [
  'ACTIVE',
  'USED',
  'EXHAUSTED',
  'DISABLED',
  'DELETED',
];

export type ProfileSource = 'ROUTER' | 'MANUAL';

/** One hotspot profile of a tenant: what a ticket of it may do. Limits null mean "no limit". */
export interface RadiusProfilesTable {
  id: string;
  client_id: string;
  /** Exact hotspot profile name on the router; the identity key within the tenant. */
  name: string;
  /** MikroTik rate-limit string (`2M/2M`, `512k/1M 1M/2M 384k/768k 8/8`), answered as Mikrotik-Rate-Limit. */
  rate_limit: string | null;
  data_limit_bytes: number | null;
  /** Online time a ticket may consume (RouterOS limit-uptime). */
  time_limit_seconds: number | null;
  /** Lifetime of a ticket counted from its first authentication. */
  validity_seconds: number | null;
  /** Integer XOF set by the manager; null when never priced. */
  price_xof: number | null;
  source: ProfileSource;
  updated_at: string;
}

/** One voucher: a RADIUS user of the tenant. Usage columns are totals over its accounting sessions. */
export interface RadiusTicketsTable {
  id: string;
  client_id: string;
  /** The RADIUS User-Name, unique per tenant. */
  code: string;
  password: string;
  profile_id: string;
  /** The profile as its creator named it (id or name), answered as `profile_id`; null: the id. */
  profile_ref: string | null;
  status: TicketStatus;
  comment: string | null;
  reseller_name: string | null;
  created_at: string;
  used_at: string | null;
  first_nas_id: string | null;
  bytes_used: number;
  seconds_used: number;
  /** Consumed before the controller counted this ticket (on the router it was migrated from). */
  bytes_base: number;
  seconds_base: number;
  /** used_at + validity, fixed at the first authentication; null when the profile has no validity. */
  expires_at: string | null;
  /** This ticket's own data quota (a router user's limit-bytes-total); null: the profile's applies. */
  data_limit_bytes: number | null;
  /** This ticket's own time quota (a router user's limit-uptime); null: the profile's applies. */
  time_limit_seconds: number | null;
}

export interface TicketsTables {
  radius_profiles: RadiusProfilesTable;
  radius_tickets: RadiusTicketsTable;
}
