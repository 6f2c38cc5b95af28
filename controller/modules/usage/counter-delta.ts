// Turns two WAN counter readings into bytes used (docs/bandwidth.md, "Usage store"): the first
// point of a router only sets the baseline; a gap under 15 s or over 15 min, or a counter that went
// back (a reboot or a reset), gives nothing, and the new reading becomes the baseline.

export const MIN_INTERVAL_MS = 15_000;
export const MAX_INTERVAL_MS = 15 * 60_000;

export interface CounterReading {
  at: number;
  rx: number;
  tx: number;
}

/** Bytes between `prev` and `next`, or null when the interval is not counted. */
export function counterDelta(prev: CounterReading | null, next: CounterReading): number | null {
  if (!prev) return null;
  const gap = next.at - prev.at;
  if (gap < MIN_INTERVAL_MS || gap > MAX_INTERVAL_MS) return null;
  if (next.rx < prev.rx || next.tx < prev.tx) return null;
  return next.rx - prev.rx + (next.tx - prev.tx);
}
