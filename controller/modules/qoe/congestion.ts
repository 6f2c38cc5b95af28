// When a NAS is congested (docs/api/qoe.md, "Congestion"): judged against the NAS's own RTT
// baseline, so a geostationary link (600 ms at rest) is not congested for being far away.

/** RTT must reach this multiple of the baseline… */
export const RTT_FACTOR = 1.5;
/** …and exceed it by at least this much (ms), so a 20 ms fibre link is not congested at 31 ms. */
export const RTT_MIN_EXCESS_MS = 100;
/** Loss at or above this (percent) is congestion whatever the RTT (a satellite link loses ~2 %). */
export const LOSS_PCT = 5;
/** A point older than this says nothing of the link now. */
export const FRESH_MS = 15 * 60_000;

export interface CongestionInput {
  rtt_ms: number | null;
  packet_loss_pct: number | null;
  /** The lowest RTT of the NAS over the 24 hours up to its latest point (that point included). */
  baseline_rtt_ms: number | null;
  /** Age of the latest point at the time of asking, in ms. */
  age_ms: number;
}

export function isCongested(p: CongestionInput): boolean {
  if (p.age_ms > FRESH_MS) return false;
  if (p.packet_loss_pct !== null && p.packet_loss_pct >= LOSS_PCT) return true;
  if (p.rtt_ms === null || p.baseline_rtt_ms === null) return false;
  return p.rtt_ms >= p.baseline_rtt_ms * RTT_FACTOR && p.rtt_ms - p.baseline_rtt_ms >= RTT_MIN_EXCESS_MS;
}
