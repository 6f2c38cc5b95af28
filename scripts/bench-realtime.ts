// `npm run bench:realtime`: subscribers on support:presence receiving publications, publish to
// receipt, beside the same payload sent in the same run by
//   - the floor: a bare `ws` server sending each payload to every socket;
//   - nchan: Debian's nginx with libnginx-mod-nchan (one worker), publishing by HTTP POST, when
//     installed (else the report says so and skips its row);
//   - ours, one instance on SQLite, and two instances on one PostgreSQL (subscribers split across
//     both, publications alternating between them) when a PostgreSQL URL is given;
//   - the floor of two instances: two bare `ws` processes, the subscribers split across them, each
//     publication sent by both (nothing between them), printed beside the two-instance goal.
// Every target's subscribers stay open together and the publications are interleaved: each single
// publication goes to one target, is awaited on all its sockets, then the next target gets the
// same, in a rotating order; bursts likewise. On a loaded machine every target then meets the
// same load. Figures: p50/p99 per mode, deliveries lost (never received within `--wait-ms`) and
// doubled, sockets that failed to open; ratios to the floor and to nchan; the servers' CPU per
// delivery (from /proc, so it holds under load better than latencies; PostgreSQL's own excluded)
// and the frames each socket took per burst; the goals (one instance
// p99 ≤ 2× floor and ≤ nchan, two instances < 100 ms, nothing lost or doubled) as PASS/FAIL, and
// the load average. Loopback only; every process is stopped by its PID.
//   node --import tsx scripts/bench-realtime.ts [--subscribers 5000] [--procs 4] [--pg URL]
//     [--single 200] [--bursts 20] [--burst-size 10] [--skip floor,floor2,nchan,ours1,ours2] [--out FILE]
//     [--cpu-prof DIR]
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { processCpuSeconds } from './bench-process-cpu.js';
import { startNchan } from './bench-realtime-nchan.js';
import { childReply, load } from './bench-support.js';

const ROOT = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '5000' },
    procs: { type: 'string', default: '4' },
    single: { type: 'string', default: '200' },
    'gap-ms': { type: 'string', default: '20' },
    bursts: { type: 'string', default: '20' },
    'burst-size': { type: 'string', default: '10' },
    pg: { type: 'string', default: process.env.TICKETNET_BENCH_PG ?? process.env.TICKETNET_TEST_PG ?? '' },
    skip: { type: 'string', default: '' },
    /** How long one publication (or burst) may take to reach every socket before the run moves on. */
    'wait-ms': { type: 'string', default: '10000' },
    'max-seconds': { type: 'string', default: '1500' },
    out: { type: 'string' },
    /** A directory: the servers (ours and the floor) write V8 CPU profiles there at exit. */
    'cpu-prof': { type: 'string' },
  },
});
const N = Number(opt.subscribers);
const PROCS = Number(opt.procs);
const SINGLE = Number(opt.single);
const BURSTS = Number(opt.bursts);
const BURST = Number(opt['burst-size']);
const TOTAL = SINGLE + BURSTS * BURST;
const WAIT = Number(opt['wait-ms']);
const skip = new Set(opt.skip.split(',').filter(Boolean));
const work = mkdtempSync(join(tmpdir(), 'tn-bench-rt-'));
const children = new Set<ChildProcess>();
const track = <T extends ChildProcess>(c: T): T => {
  children.add(c);
  c.once('exit', () => children.delete(c));
  return c;
};
const cleanups: (() => Promise<void>)[] = [];
const stopAll = () => {
  for (const c of children) if (c.pid) process.kill(c.pid, 'SIGTERM');
};
process.on('exit', stopAll);
setTimeout(
  () => {
    console.error('bench:realtime: max-seconds reached');
    stopAll();
    process.exit(1);
  },
  Number(opt['max-seconds']) * 1000,
).unref();

const now = () => performance.timeOrigin + performance.now();
function server(kind: string, extra: string[] = []) {
  const c = track(
    fork(
      join(ROOT, 'scripts/bench-realtime-server.ts'),
      ['--kind', kind, '--max-seconds', opt['max-seconds'], ...extra],
      {
        execArgv: [
          '--import',
          'tsx',
          ...(opt['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', resolve(opt['cpu-prof'])] : []),
        ],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    ),
  );
  return { c, ready: childReply<{ port: number; token?: string }>(c, 'ready') };
}
const ipcPublish = (c: ChildProcess) => (data: unknown) => void c.send({ publish: data });

interface Target {
  name: string;
  kind: 'ours' | 'floor' | 'nchan';
  urls: string[];
  token?: string;
  /** The serving processes (their CPU is measured; nginx's worker counts as its master's child). */
  pids: number[];
  publish: (seq: number, data: unknown) => Promise<void> | void;
}
const targets: Target[] = [];
const notes: string[] = [];

// --- the publishing sides -----------------------------------------------------------------------
if (!skip.has('floor')) {
  const s = server('floor');
  const { port } = await s.ready;
  targets.push({
    name: 'floor (bare ws)',
    kind: 'floor',
    urls: [`ws://127.0.0.1:${port}/`],
    pids: [s.c.pid!],
    publish: (_i, d) => ipcPublish(s.c)(d),
  });
}
// The floor of two instances: two bare servers, the subscribers split across them, each
// publication sent by both (no messaging between them): what "two instances" can show here at best.
if (!skip.has('floor2')) {
  const pair = [server('floor'), server('floor')];
  const ports = await Promise.all(pair.map(async (s) => (await s.ready).port));
  targets.push({
    name: 'floor, 2 processes (bare ws)',
    kind: 'floor',
    urls: ports.map((port) => `ws://127.0.0.1:${port}/`),
    pids: pair.map((s) => s.c.pid!),
    publish: (_i, d) => pair.forEach((s) => ipcPublish(s.c)(d)),
  });
}
if (!skip.has('nchan')) {
  const n = await startNchan(work, track);
  if (typeof n === 'string') {
    notes.push(`nchan: not measured, row skipped (${n}; apt-get install nginx libnginx-mod-nchan)`);
    console.error(`bench:realtime: nchan row skipped: ${n}`);
  } else {
    targets.push({
      name: 'nchan (nginx, 1 worker)',
      kind: 'nchan',
      urls: [n.sub],
      pids: [n.pid],
      publish: async (_i, data) => {
        const res = await fetch(n.pub, {
          method: 'POST',
          body: JSON.stringify(data),
          headers: { 'content-type': 'application/json' },
        });
        await res.arrayBuffer();
      },
    });
  }
}
if (!skip.has('ours1')) {
  const s = server('ours', ['--instance', 'bench-1']);
  const { port, token } = await s.ready;
  targets.push({
    name: 'ours, 1 instance (SQLite)',
    kind: 'ours',
    urls: [`ws://127.0.0.1:${port}/realtime`],
    token,
    pids: [s.c.pid!],
    publish: (_i, d) => ipcPublish(s.c)(d),
  });
}
if (!skip.has('ours2')) {
  if (!opt.pg) notes.push('ours, 2 instances: not measured (no PostgreSQL URL: --pg or TICKETNET_BENCH_PG)');
  else {
    // A database of its own, dropped at the end: the server named by --pg is shared.
    const name = `tn_bench_realtime_${process.pid}`;
    const admin = new pg.Client({ connectionString: opt.pg });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(opt.pg);
    url.pathname = `/${name}`;
    const a = server('ours', ['--instance', 'bench-a', '--db', url.toString()]);
    const ra = await a.ready;
    const b = server('ours', ['--instance', 'bench-b', '--db', url.toString()]);
    const rb = await b.ready;
    targets.push({
      name: 'ours, 2 instances (PostgreSQL)',
      kind: 'ours',
      urls: [`ws://127.0.0.1:${ra.port}/realtime`, `ws://127.0.0.1:${rb.port}/realtime`],
      token: ra.token,
      pids: [a.c.pid!, b.c.pid!],
      publish: (i, d) => ipcPublish(i % 2 ? a.c : b.c)(d),
    });
    cleanups.push(async () => {
      for (const s of [a, b]) {
        const exited = new Promise((r) => s.c.once('exit', r));
        process.kill(s.c.pid!, 'SIGTERM');
        await exited;
      }
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    });
  }
}

// --- the subscribers ----------------------------------------------------------------------------
const loadBefore = load();
const clients = Array.from({ length: PROCS }, (_, i) =>
  track(
    fork(
      join(ROOT, 'scripts/bench-realtime-clients.ts'),
      ['--local', `127.0.0.${10 + i}`, '--max-seconds', opt['max-seconds']],
      {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    ),
  ),
);
/** Per target and seq: how many client processes have it on all their sockets. */
const got = targets.map(() => new Int32Array(TOTAL + 1));
const waiters = new Map<string, () => void>();
for (const c of clients)
  c.on('message', (m: { got?: [number, number] }) => {
    if (!m.got) return;
    const [t, seq] = m.got;
    if (++got[t]![seq]! === PROCS) waiters.get(`${t} ${seq}`)?.();
  });
const delivered = (t: number, seq: number): Promise<void> =>
  got[t]![seq]! === PROCS
    ? Promise.resolve()
    : new Promise((res) => {
        const key = `${t} ${seq}`;
        const timer = setTimeout(() => {
          waiters.delete(key);
          res();
        }, WAIT);
        waiters.set(key, () => {
          clearTimeout(timer);
          waiters.delete(key);
          res();
        });
      });

const share = (total: number, parts: number, i: number) =>
  Math.floor(total / parts) + (i < total % parts ? 1 : 0);
const opened = performance.now();
const ready = await Promise.all(
  clients.map((c, i) => {
    const count = share(N, PROCS, i);
    const r = childReply<{ opened: number[]; failed: number[]; seconds: number[] }>(c, 'ready');
    c.send({
      split: SINGLE,
      open: targets.map((t) => ({
        kind: t.kind,
        token: t.token,
        total: TOTAL,
        // Split evenly over the target's addresses (two instances: half on each).
        urls: t.urls.map((url, u) => ({ url, count: share(count, t.urls.length, u) })),
      })),
    });
    return r;
  }),
);
const connectS = (performance.now() - opened) / 1000;
const progress = (what: string) => console.error(`bench:realtime: ${what} (load ${load()})`);
progress(`${targets.length} × ${N} sockets open in ${connectS.toFixed(1)} s`);
const failedSockets = targets.map((_, t) => ready.reduce((a, r) => a + r.failed[t]!, 0));
const openSockets = targets.map((_, t) => ready.reduce((a, r) => a + r.opened[t]!, 0));
/** Seconds the slowest client process took to open its share of each target's sockets. */
const openSeconds = targets.map((_, t) => Math.max(...ready.map((r) => r.seconds[t]!)));
targets.forEach((t, i) => {
  if (failedSockets[i]) console.error(`${t.name}: ${failedSockets[i]} of ${N} sockets failed to open`);
});
await sleep(1000);

// --- the schedule: interleaved, rotating which target goes first --------------------------------
const pad = 'x'.repeat(120); // about the size of a PRO_STATUS_CHANGED event
/** Each target's server CPU seconds before the singles, after them, after the bursts. */
const cpu = targets.map((t) => [processCpuSeconds(t.pids)]);
const order = (round: number) => targets.map((_, i) => (i + round) % targets.length);
for (let seq = 1; seq <= SINGLE; seq++) {
  for (const t of order(seq)) {
    const done = delivered(t, seq);
    await targets[t]!.publish(seq, { seq, t: now(), pad });
    await done;
    await sleep(Number(opt['gap-ms']));
  }
}
progress(`${SINGLE} single publications per target done`);
targets.forEach((t, i) => cpu[i]!.push(processCpuSeconds(t.pids)));
for (let b = 0; b < BURSTS; b++) {
  for (const t of order(b)) {
    const first = SINGLE + b * BURST + 1;
    const seqs = Array.from({ length: BURST }, (_, i) => first + i);
    const done = Promise.all(seqs.map((s) => delivered(t, s)));
    await Promise.all(seqs.map((seq) => targets[t]!.publish(seq, { seq, t: now(), pad })));
    await done;
    await sleep(100);
  }
}
targets.forEach((t, i) => cpu[i]!.push(processCpuSeconds(t.pids)));
const loadAfter = load();
const reports = await Promise.all(
  clients.map((c) => {
    const r = childReply<Report[]>(c, 'report');
    c.send({ report: true });
    return r;
  }),
);
for (const c of clients) c.send({ close: true });
await sleep(300);
for (const cleanup of cleanups) await cleanup();

// --- figures ------------------------------------------------------------------------------------
interface Report {
  single: [number, number][];
  burst: [number, number][];
  doubled: number;
  delivered: number;
  burstFrames: number;
  opened: number;
  failed: number;
}
/** The p-th percentile of a merged log histogram (buckets of 1 %, in microseconds). */
function pct(hists: [number, number][][], p: number): number {
  const merged = new Map<number, number>();
  for (const h of hists) for (const [b, n] of h) merged.set(b, (merged.get(b) ?? 0) + n);
  const sorted = [...merged].sort((x, y) => x[0] - y[0]);
  const total = sorted.reduce((a, [, n]) => a + n, 0);
  if (total === 0) return NaN;
  const rank = Math.min(total, Math.floor((p / 100) * total) + 1);
  let seen = 0;
  for (const [b, n] of sorted) if ((seen += n) >= rank) return Math.exp((b + 0.5) * Math.log(1.01)) / 1000;
  return NaN;
}
interface Row {
  name: string;
  single: { p50: number; p99: number };
  burst: { p50: number; p99: number };
  lost: number;
  doubled: number;
  failed: number;
  openS: number;
  /** Server CPU microseconds per delivery (publication × socket), singles and bursts. */
  cpuUs: { single: number; burst: number };
  /** Frames per socket per burst (1 when a burst goes out as one frame). */
  framesPerBurst: number;
}
const rows: Row[] = targets.map((t, i) => {
  const r = reports.map((per) => per[i]!);
  return {
    name: t.name,
    single: {
      p50: pct(
        r.map((x) => x.single),
        50,
      ),
      p99: pct(
        r.map((x) => x.single),
        99,
      ),
    },
    burst: {
      p50: pct(
        r.map((x) => x.burst),
        50,
      ),
      p99: pct(
        r.map((x) => x.burst),
        99,
      ),
    },
    lost: openSockets[i]! * TOTAL - r.reduce((a, x) => a + x.delivered, 0),
    doubled: r.reduce((a, x) => a + x.doubled, 0),
    failed: failedSockets[i]!,
    openS: openSeconds[i]!,
    cpuUs: {
      single: ((cpu[i]![1]! - cpu[i]![0]!) * 1e6) / (openSockets[i]! * SINGLE),
      burst: ((cpu[i]![2]! - cpu[i]![1]!) * 1e6) / (openSockets[i]! * BURSTS * BURST),
    },
    framesPerBurst: r.reduce((a, x) => a + x.burstFrames, 0) / (openSockets[i]! * BURSTS),
  };
});

const f = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const floor = rows.find((r) => r.name.startsWith('floor ('));
const floor2 = rows.find((r) => r.name.startsWith('floor, 2'));
const nchan = rows.find((r) => r.name.startsWith('nchan'));
const ratio = (r: Row, base: Row | undefined) =>
  base ? `${f(r.single.p99 / base.single.p99)}, ${f(r.burst.p99 / base.burst.p99)}` : '-';
const lines = [
  `bench:realtime  ${N} subscribers per target on support:presence, ${SINGLE} single publications + ${BURSTS} bursts of ${BURST}, interleaved across targets; ${PROCS} client processes; all sockets opened in ${connectS.toFixed(1)} s`,
  `load average (1, 5, 15 min): ${loadBefore} before, ${loadAfter} after; ${process.env.HOSTNAME ?? ''} ${(await import('node:os')).cpus().length} cores`,
  '',
  '| target | single p50 ms | single p99 ms | burst p50 ms | burst p99 ms | p99 / floor (single, burst) | p99 / nchan (single, burst) | server CPU µs per delivery (single, burst) | frames per socket per burst | lost | doubled | sockets failed | open s |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${f(r.single.p50)} | ${f(r.single.p99)} | ${f(r.burst.p50)} | ${f(r.burst.p99)} | ${ratio(r, floor)} | ${ratio(r, nchan)} | ${f(r.cpuUs.single)}, ${f(r.cpuUs.burst)} | ${f(r.framesPerBurst)} | ${r.lost} | ${r.doubled} | ${r.failed} | ${r.openS.toFixed(1)} |`,
  ),
  '',
];
const one = rows.find((r) => r.name.startsWith('ours, 1'));
const two = rows.find((r) => r.name.startsWith('ours, 2'));
const goal = (label: string, ok: boolean | null) =>
  lines.push(`${ok === null ? 'n/a ' : ok ? 'PASS' : 'FAIL'}  ${label}`);
const worst = (r: Row) => Math.max(r.single.p99, r.burst.p99);
goal(
  'one instance p99 ≤ 2× floor',
  one && floor ? one.single.p99 <= 2 * floor.single.p99 && one.burst.p99 <= 2 * floor.burst.p99 : null,
);
goal(
  'one instance p99 no worse than nchan',
  one && nchan ? one.single.p99 <= nchan.single.p99 && one.burst.p99 <= nchan.burst.p99 : null,
);
goal(
  `two instances p99 < 100 ms${floor2 ? ` (their floor, two bare processes: ${f(worst(floor2))} ms)` : ''}`,
  two ? worst(two) < 100 : null,
);
goal(
  'nothing lost or doubled, every socket open (ours)',
  one || two ? [one, two].every((r) => !r || (r.lost === 0 && r.doubled === 0 && r.failed === 0)) : null,
);
lines.push(...notes);
const text = lines.join('\n');
console.log(text);
if (opt.out) writeFileSync(opt.out, `${text}\n\n${JSON.stringify(rows, null, 2)}\n`);
stopAll();
process.exit(0);
