// Small helpers the database benches share: percentiles, timing, the load average printed beside
// the figures, and whether the PostgreSQL server is there at all.
import { loadavg } from 'node:os';
import pg from 'pg';

/** The p-th percentile of `xs` (nearest rank). */
export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Milliseconds since `t0` (`process.hrtime.bigint()`). */
export const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/** Figures move with what else the machine runs: the load average is printed with them. */
export const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export async function pgReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}
