/** One accounting session of a NAS, as its Start / Interim-Update / Stop packets described it. */
export interface RadiusSessionsTable {
  id: string;
  client_id: string;
  nas_id: string;
  /** The User-Name of the session: a ticket code, or a router-local user during a migration. */
  ticket_code: string;
  acct_session_id: string;
  started_at: string;
  updated_at: string;
  stopped_at: string | null;
  /** Counters exactly as the NAS sent them (32-bit octets plus gigawords). */
  input_octets: number;
  input_gigawords: number;
  output_octets: number;
  output_gigawords: number;
  /** Input plus output bytes with the gigawords folded in: what the ticket's data quota counts. */
  total_bytes: number;
  session_time: number;
  terminate_cause: string | null;
  framed_ip: string | null;
  /** The client's MAC address as the NAS formats it. */
  calling_station_id: string | null;
}

export type AuthResult = 'ACCEPT' | 'REJECT';

/** One authentication decision; append-only, read by the affluence report. */
export interface RadiusAuthLogTable {
  client_id: string;
  nas_id: string;
  username: string;
  result: AuthResult;
  /** Why a request was refused (UNKNOWN_USER, BAD_PASSWORD, …); FIRST_USE or null on an accept. */
  reason: string | null;
  calling_station_id: string | null;
  at: string;
}

export interface RadiusTables {
  radius_sessions: RadiusSessionsTable;
  radius_auth_log: RadiusAuthLogTable;
}
