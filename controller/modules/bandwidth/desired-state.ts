// What a router should carry now (docs/bandwidth.md, "Desired state"): pure, given the programme,
// the router's local day and its measured usage. The reconciliation writes what this decides.
import type { Programme } from './programme-rules.js';

export const GB = 1e9;
const GIB = 2 ** 30;
/** A peak needs this much in the last two hours (the QoE acceleration threshold)… */
export const PEAK_MIN_BYTES = 5 * GIB;
/** …and a two-hour rate at least this much above the earlier rate of the day (35 percent). */
export const PEAK_MIN_RISE = 0.35;

export type Motif =
  'JOUR_PROGRAMME' | 'QUOTA_JOURNALIER' | 'QUOTA_MENSUEL' | 'PIC_DE_CONSOMMATION' | 'PLAFOND_SATELLITE';

export interface UsageNow {
  /** Bytes of the router's day so far, of its month so far, of the last two hours; null when unmeasured. */
  day: number | null;
  month: number | null;
  twoHours: number | null;
  /** Hours elapsed in the router's day (0 to 24). */
  hoursIntoDay: number;
}

export interface DesiredInput {
  programme: Pick<
    Programme,
    | 'enabled'
    | 'mode'
    | 'limit_mbps'
    | 'scheduled_dates'
    | 'schedule_weekdays'
    | 'daily_quota_gb'
    | 'monthly_quota_gb'
  >;
  /** The router's local day (YYYY-MM-DD) and weekday (0 Sunday). */
  day: string;
  weekday: number;
  usage: UsageNow;
  /** The router's day on which a peak was last found: a peak holds the cap until the day ends. */
  peakDay: string | null;
  /** A cap imposed from elsewhere (satellite quota smoothing), in Mbps; never above the manager's own. */
  imposedCapMbps?: number | null;
}

export interface Desired {
  on: boolean;
  capMbps: number | null;
  motif: Motif | null;
  /** Set when this evaluation found a new peak: the acceleration it measured. */
  peak: { acceleration_pct: number } | null;
}

/** Acceleration of the last two hours over the earlier part of the day, in percent; null when not judged. */
export function acceleration(usage: UsageNow): number | null {
  if (usage.day === null || usage.twoHours === null || usage.hoursIntoDay <= 2) return null;
  const earlier = usage.day - usage.twoHours;
  if (earlier <= 0) return null;
  const earlierRate = earlier / (usage.hoursIntoDay - 2);
  const recentRate = usage.twoHours / 2;
  return Math.round(((recentRate - earlierRate) / earlierRate) * 1000) / 10;
}

export function desiredState(input: DesiredInput): Desired {
  const p = input.programme;
  const off: Desired = { on: false, capMbps: null, motif: null, peak: null };
  if (!p.enabled) return off;
  const on = (motif: Motif, cap = p.limit_mbps, peak: Desired['peak'] = null): Desired => ({
    on: true,
    capMbps: cap,
    motif,
    peak,
  });
  const imposed = input.imposedCapMbps ?? null;
  const scheduled = p.mode !== 'ADAPTIVE';
  const adaptive = p.mode !== 'SCHEDULED';
  if (scheduled && (p.scheduled_dates.includes(input.day) || p.schedule_weekdays.includes(input.weekday)))
    return on('JOUR_PROGRAMME', imposed !== null ? Math.min(imposed, p.limit_mbps) : p.limit_mbps);
  if (imposed !== null) return on('PLAFOND_SATELLITE', Math.min(imposed, p.limit_mbps));
  if (!adaptive) return off;
  const u = input.usage;
  if (p.daily_quota_gb !== null && u.day !== null && u.day >= p.daily_quota_gb * GB)
    return on('QUOTA_JOURNALIER');
  if (p.monthly_quota_gb !== null && u.month !== null && u.month >= p.monthly_quota_gb * GB)
    return on('QUOTA_MENSUEL');
  if (input.peakDay === input.day) return on('PIC_DE_CONSOMMATION');
  const rise = acceleration(u);
  if (u.twoHours !== null && u.twoHours >= PEAK_MIN_BYTES && rise !== null && rise >= PEAK_MIN_RISE * 100)
    return on('PIC_DE_CONSOMMATION', p.limit_mbps, { acceleration_pct: rise });
  return off;
}
