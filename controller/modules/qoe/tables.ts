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
