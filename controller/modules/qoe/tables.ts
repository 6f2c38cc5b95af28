/** The telemetry bridge token of one NAS: only its hash is kept; a new enrolment replaces it. */
export interface QoeBridgeTokensTable {
  nas_id: string;
  client_id: string;
  allocation_id: string;
  /** SHA-256 of the token, hex. */
  token_hash: string;
  issued_at: string;
}

/** One telemetry point of a NAS, stored once per (NAS, observed_at). */
export interface QoePointsTable {
  id: string;
  client_id: string;
  nas_id: string;
  allocation_id: string;
  observed_at: string;
  received_at: string;
  rtt_ms: number | null;
  jitter_ms: number | null;
  packet_loss_pct: number | null;
  tx_bps: number | null;
  rx_bps: number | null;
  wan_rx_bytes: number | null;
  wan_tx_bytes: number | null;
  /** JSON array of `{username, ip, rx_bps}`. */
  top_consumers: string;
}

/** A usage alert raised for a NAS on one of its router days: the key that makes it unique. */
export interface QoeAlertsTable {
  nas_id: string;
  type: 'DAILY' | 'ACCELERATION';
  /** The router's local day (YYYY-MM-DD). */
  day: string;
  client_id: string;
  raised_at: string;
  /** 1 when a push went to the manager; 0 when the preferences held it. */
  pushed: number;
  /** JSON `{daily_gb, last_two_hours_gb, acceleration_pct}` at the time of the alert. */
  usage: string;
}

export interface QoeTables {
  qoe_bridge_tokens: QoeBridgeTokensTable;
  qoe_points: QoePointsTable;
  qoe_alerts: QoeAlertsTable;
  qoe_reports: QoeReportsTable;
  qoe_actions: QoeActionsTable;
}

/** The daily report of a client for one day (the PRIMARY router's day), unique per client and date. */
export interface QoeReportsTable {
  client_id: string;
  date: string;
  id: string;
  created_at: string;
  /** JSON of the report's summary (docs/api/qoe.md, "Daily report"). */
  summary: string;
  /** 1 when a push was queued; 0 when `daily_report_push` held it. */
  pushed: number;
}

export type QoeActionState = 'RUNNING' | 'SUCCEEDED' | 'FAILED';
/** How the router is asked: a Disconnect-Request to `/radius incoming`, or the active entry removed. */
export type QoeActionMethod = 'RADIUS_DISCONNECT' | 'HOTSPOT_ACTIVE_REMOVE';

/** A kick a manager asked for (type POD_DISCONNECT), RUNNING until the session is seen to end. */
export interface QoeActionsTable {
  id: string;
  client_id: string;
  nas_id: string;
  allocation_id: string;
  type: 'POD_DISCONNECT';
  username: string;
  /** Acct-Session-Id of the accounting session aimed at; null for a local user. */
  session_id: string | null;
  /** The session's address (Framed-IP-Address), when accounting knew it. */
  framed_ip: string | null;
  method: QoeActionMethod;
  state: QoeActionState;
  /** Why a FAILED action failed (docs/api/qoe.md, "Kick"). */
  reason: string | null;
  /** What showed the session's end: ACCOUNTING_STOP or ACTIVE_LIST. */
  ended_by: string | null;
  /** The router's answer to the request (ACK, NAK, NONE; or REMOVED, KEPT, NOT_FOUND). */
  router_answer: string | null;
  /** The agent command that carries the request; null until it is queued. */
  command_id: string | null;
  created_at: string;
  updated_at: string;
  deadline_at: string;
  finished_at: string | null;
}
