import type { Generated } from 'kysely';
import type { ProgrammeMode } from './programme-rules.js';

/** One router's programme and what the reconciliation last decided and saw (docs/bandwidth.md). */
export interface BandwidthProgrammesTable {
  nas_id: string;
  client_id: string;
  allocation_id: string;
  enabled: number;
  mode: ProgrammeMode;
  limit_mbps: number;
  essential_share: number;
  /** JSON arrays. */
  essential_classes: string;
  scheduled_dates: string;
  schedule_weekdays: string;
  daily_quota_gb: number | null;
  monthly_quota_gb: number | null;
  user_daily_quota_gb: number | null;
  user_limit_mbps: number | null;
  max_throttled_users: number;
  revision: number;
  updated_at: string;
  /** ON or OFF as the last pass decided, and as the router was last seen. */
  desired_state: 'ON' | 'OFF';
  observed_state: 'ON' | 'OFF' | null;
  motif: string | null;
  /** The router's day on which a consumption peak was found (the cap holds until it ends). */
  peak_day: string | null;
  checked_at: string | null;
  in_error: number;
  error_code: string | null;
  /** Disabled but its marked objects not yet removed from the router (the sweep does it). */
  cleanup_pending: number;
  /** The pass lease: a pass owns the router until `pass_until`. */
  pass_token: string | null;
  pass_until: string | null;
  /** Oldest first: the next pass takes the routers that waited longest. */
  last_pass_at: string;
  /**
   * Digests of the params last applied and of the router's marked objects as then read: while both
   * hold, a pass reads the router's digest instead of sending the whole plan.
   */
  params_digest: string | null;
  router_digest: string | null;
  /** The cap another module imposed at the last pass (Mbps), kept when it cannot answer. */
  imposed_cap_mbps: number | null;
}

/** Every version of a programme, as it was recorded. */
export interface BandwidthRevisionsTable {
  nas_id: string;
  revision: number;
  client_id: string;
  programme: string;
  created_at: string;
  created_by: string;
}

export interface BandwidthActivityTable {
  id: string;
  client_id: string;
  nas_id: string;
  type: string;
  at: string;
  texte: string;
  detail: string;
}

/** A user under the individual cap on one router. */
export interface BandwidthThrottlesTable {
  nas_id: string;
  username: string;
  client_id: string;
  limit_mbps: number;
  framed_ips: string;
  observed_bytes: number;
  /** The router's day the throttle belongs to: released when the day changes. */
  day: string;
  applied_at: string;
  sources: string;
}

/** A router's day during which the cap was seen on (the impact report's bridled days). */
export interface BandwidthCappedDaysTable {
  nas_id: string;
  day: string;
  client_id: string;
}

/** When each alert of a router was last sent (no repeat within 6 hours). */
export interface BandwidthAlertsTable {
  nas_id: string;
  kind: string;
  client_id: string;
  sent_at: string;
}

/**
 * The manager's notification preferences, one row per client: the bandwidth switch, the
 * network-quality switches (the qoe module reads and writes them through this module's service)
 * and the quiet hours both follow (0–23, router time). 0/1 booleans.
 */
export interface QoeNotificationPreferencesTable {
  client_id: string;
  bandwidth_push: number;
  quiet_start: number | null;
  quiet_end: number | null;
  /** Default 1 (on) when a row is written without them. */
  urgent_push: Generated<number>;
  daily_report_push: Generated<number>;
  usage_alert_push: Generated<number>;
  updated_at: string;
}

export interface BandwidthTables {
  qoe_notification_preferences: QoeNotificationPreferencesTable;
  bandwidth_programmes: BandwidthProgrammesTable;
  bandwidth_revisions: BandwidthRevisionsTable;
  bandwidth_activity: BandwidthActivityTable;
  bandwidth_throttles: BandwidthThrottlesTable;
  bandwidth_capped_days: BandwidthCappedDaysTable;
  bandwidth_alerts: BandwidthAlertsTable;
}
