// CPU seconds a process has used (user + system, all its threads) with its direct children, read
// from /proc: a figure that moves little with what else the machine runs, unlike latencies. The
// nchan row needs the children (nginx's worker does the work, under its master); Linux only.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** utime + stime of one process in clock ticks, and its parent; null once it is gone. */
function stat(pid: number): { ticks: number; ppid: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces), from field 3 (state) on.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ticks: Number(f[11]) + Number(f[12]), ppid: Number(f[1]) };
  } catch {
    return null;
  }
}

/** CPU seconds of these processes and of their direct children; NaN where /proc is absent. */
export function processCpuSeconds(pids: number[]): number {
  let ticks = 0;
  let seen = false;
  const wanted = new Set(pids);
  let all: string[] = [];
  try {
    all = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return NaN;
  }
  for (const d of all) {
    const pid = Number(d);
    const s = stat(pid);
    if (!s || !(wanted.has(pid) || wanted.has(s.ppid))) continue;
    ticks += s.ticks;
    seen = true;
  }
  return seen ? ticks / TICKS_PER_SECOND : NaN;
}
