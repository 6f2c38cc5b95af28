// How a stored programme reads in the API (`GET /bandwidth/program`).
import type { UsageTotals } from '../usage/index.js';
import type { Programme } from './programme-rules.js';
import type { BandwidthProgrammesTable, BandwidthThrottlesTable } from './tables.js';

export function programmeOf(row: BandwidthProgrammesTable): Programme {
  return {
    enabled: row.enabled === 1,
    mode: row.mode,
    limit_mbps: Number(row.limit_mbps),
    essential_share: Number(row.essential_share),
    essential_classes: JSON.parse(row.essential_classes) as string[],
    scheduled_dates: JSON.parse(row.scheduled_dates) as string[],
    schedule_weekdays: JSON.parse(row.schedule_weekdays) as number[],
    daily_quota_gb: row.daily_quota_gb === null ? null : Number(row.daily_quota_gb),
    monthly_quota_gb: row.monthly_quota_gb === null ? null : Number(row.monthly_quota_gb),
    user_daily_quota_gb: row.user_daily_quota_gb === null ? null : Number(row.user_daily_quota_gb),
    user_limit_mbps: row.user_limit_mbps === null ? null : Number(row.user_limit_mbps),
    max_throttled_users: row.max_throttled_users,
  };
}

/** The programme's columns as written from a checked programme. */
export function programmeColumns(p: Programme) {
  return {
    enabled: p.enabled ? 1 : 0,
    mode: p.mode,
    limit_mbps: p.limit_mbps,
    essential_share: p.essential_share,
    essential_classes: JSON.stringify(p.essential_classes),
    scheduled_dates: JSON.stringify(p.scheduled_dates),
    schedule_weekdays: JSON.stringify(p.schedule_weekdays),
    daily_quota_gb: p.daily_quota_gb,
    monthly_quota_gb: p.monthly_quota_gb,
    user_daily_quota_gb: p.user_daily_quota_gb,
    user_limit_mbps: p.user_limit_mbps,
    max_throttled_users: p.max_throttled_users,
  };
}

export function sameProgramme(a: Programme, b: Programme): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function programmeState(
  row: BandwidthProgrammesTable,
  timezone: string,
  today: string,
  usage: UsageTotals,
  throttled: number,
) {
  const p = programmeOf(row);
  return {
    nas_id: row.nas_id,
    ...p,
    revision: row.revision,
    etat_souhaite: row.desired_state,
    etat_constate: row.observed_state ?? 'OFF',
    motif: row.motif,
    timezone,
    derniere_verification: row.checked_at,
    en_erreur: row.in_error === 1,
    jours_programmes_restants: p.scheduled_dates.filter((d) => d >= today).length,
    consommation: usage,
    usagers_brides: throttled,
  };
}

export function throttleView(row: BandwidthThrottlesTable) {
  return {
    nas_id: row.nas_id,
    username: row.username,
    limit_mbps: Number(row.limit_mbps),
    framed_ips: JSON.parse(row.framed_ips) as string[],
    observed_bytes: Number(row.observed_bytes),
    applied_at: row.applied_at,
  };
}
