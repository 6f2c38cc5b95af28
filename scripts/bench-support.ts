// Small helpers the database benches share: percentiles, timing, the load average printed beside
// the figures, whether the PostgreSQL server is there at all, and one run per database.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../controller/db/database.js';

/** The p-th percentile of `xs` (nearest rank). */
export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** The median of `xs` (the lower one of an even count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1]!;

/** Milliseconds since `t0` (`process.hrtime.bigint()`). */
export const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/** The next IPC message of `child` carrying `key` (its value); refused if the child exits first. */
export function childReply<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) =>
      reject(new Error(`a bench process exited (${code}) before ${key}`));
    const on = (m: Record<string, unknown>) => {
      if (!(key in m)) return;
      child.off('message', on);
      child.off('exit', exited);
      resolve(m[key] as T);
    };
    child.on('message', on);
    child.once('exit', exited);
  });
}

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

/**
 * Runs `run` on a fresh SQLite database, then on PostgreSQL (a schema of its own, dropped after)
 * when `pgUrl` answers, in a temporary directory removed at the end; answers the rows in that order.
 * `only` leaves out the databases it does not name.
 */
export async function onEachDatabase<R>(
  name: string,
  pgUrl: string,
  run: (db: 'sqlite' | 'postgres', handle: DatabaseHandle, dir: string) => Promise<R>,
  only: ReadonlySet<string> = new Set(['sqlite', 'postgres']),
): Promise<R[]> {
  const rows: R[] = [];
  const dir = mkdtempSync(join(tmpdir(), `tn-bench-${name}-`));
  try {
    if (only.has('sqlite'))
      rows.push(await run('sqlite', await openDatabase(`sqlite:${join(dir, 'bench.db')}`), dir));
    if (!only.has('postgres')) return rows;
    if (!(await pgReachable(pgUrl))) {
      console.log(`PostgreSQL not reachable at ${pgUrl}: skipped`);
      return rows;
    }
    const schema = `bench_${randomBytes(4).toString('hex')}`;
    try {
      rows.push(await run('postgres', await openDatabase(pgUrl, { schema }), dir));
    } finally {
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
