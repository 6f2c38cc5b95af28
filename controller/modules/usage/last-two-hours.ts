// The last two hours' bytes at an instant, from the store's UTC hour buckets. The window starts
// inside an hour: that bucket counts for the part of its hour inside the window (its bytes taken
// as spread over the hour, readings coming every minute), so a steady load reads as two hours of
// it at any minute, not up to three.

export const HOUR_MS = 3_600_000;
const WINDOW_MS = 2 * HOUR_MS;

/** The start of the oldest hour bucket a window ending at `now` touches (ISO). */
export const twoHoursFrom = (now: Date): string =>
  new Date(Math.floor((now.getTime() - WINDOW_MS) / HOUR_MS) * HOUR_MS).toISOString();

/** Bytes of the two hours before `now`, from buckets `{hour (ISO start), bytes}`; whole bytes. */
export function lastTwoHours(buckets: readonly { hour: string; bytes: number }[], now: Date): number {
  const start = now.getTime() - WINDOW_MS;
  let total = 0;
  for (const b of buckets) {
    const from = Date.parse(b.hour);
    const inside = Math.min(HOUR_MS, Math.max(0, from + HOUR_MS - start));
    total += from >= start ? b.bytes : (b.bytes * inside) / HOUR_MS;
  }
  return Math.round(total);
}
