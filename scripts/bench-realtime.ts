// `npm run bench:realtime`: subscribers on support:presence receiving publications, publish to
// receipt, beside the same payload sent in the same run by
//   - the floor: a bare `ws` server sending each payload to every socket;
//   - nchan: Debian's nginx with libnginx-mod-nchan (one worker), publishing by HTTP POST, when
//     installed (else the report says so);
//   - ours, one instance on SQLite, and two instances on one PostgreSQL (subscribers split across
//     both, publications alternating between them) when a PostgreSQL URL is given.
// Publications: `--single` one at a time `--gap-ms` apart, then `--bursts` bursts of `--burst-size`
// sent back to back. Figures: p50/p99 per mode, deliveries lost and doubled; ratios to the floor
// and to nchan; the goals (one instance p99 ≤ 2× floor and ≤ nchan, two instances < 100 ms,
// nothing lost or doubled) as PASS/FAIL. Loopback only; every process is stopped by its PID.
//   node --import tsx scripts/bench-realtime.ts [--subscribers 5000] [--procs 4] [--pg URL]
//     [--single 100] [--bursts 10] [--burst-size 10] [--skip floor,nchan,ours1,ours2] [--out FILE]
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';

const ROOT = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '5000' },
    procs: { type: 'string', default: '4' },
    single: { type: 'string', default: '100' },
    'gap-ms': { type: 'string', default: '20' },
    bursts: { type: 'string', default: '10' },
    'burst-size': { type: 'string', default: '10' },
    pg: { type: 'string', default: process.env.TICKETNET_BENCH_PG ?? process.env.TICKETNET_TEST_PG ?? '' },
    skip: { type: 'string', default: '' },
    /** How long to wait after the last publication for the deliveries still on their way. */
    'drain-ms': { type: 'string', default: '5000' },
    'max-seconds': { type: 'string', default: '600' },
    out: { type: 'string' },
  },
});
const N = Number(opt.subscribers);
const PROCS = Number(opt.procs);
const SINGLE = Number(opt.single);
const BURSTS = Number(opt.bursts);
const BURST = Number(opt['burst-size']);
const TOTAL = SINGLE + BURSTS * BURST;
const skip = new Set(opt.skip.split(',').filter(Boolean));
const work = mkdtempSync(join(tmpdir(), 'tn-bench-rt-'));
const children = new Set<ChildProcess>();
const track = <T extends ChildProcess>(c: T): T => {
  children.add(c);
  c.once('exit', () => children.delete(c));
  return c;
};
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
const once = <T>(c: ChildProcess, key: string): Promise<T> =>
  new Promise((res, rej) => {
    const on = (m: Record<string, unknown>) => {
      if (key in m) {
        c.off('message', on);
        res(m[key] as T);
      }
    };
    c.on('message', on);
    c.once('exit', (code) => rej(new Error(`process exited (${code}) before ${key}`)));
  });

function server(kind: string, extra: string[] = []) {
  const c = track(
    fork(join(ROOT, 'scripts/bench-realtime-server.ts'), ['--kind', kind, ...extra], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  return { c, ready: once<{ port: number; token?: string }>(c, 'ready') };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

async function startNchan(): Promise<{ pub: string; sub: string; stop: () => void } | string> {
  const module = '/usr/lib/nginx/modules/ngx_nchan_module.so';
  if (!existsSync('/usr/sbin/nginx') || !existsSync(module))
    return 'nginx or libnginx-mod-nchan not installed';
  const port = await freePort();
  const dir = join(work, 'nginx');
  spawnSync('mkdir', ['-p', dir]);
  writeFileSync(
    join(dir, 'nginx.conf'),
    `load_module ${module};
worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 32768; }
http {
  access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir};
  uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server {
    listen 127.0.0.1:${port};
    location = /pub { nchan_publisher; nchan_channel_id presence; nchan_message_buffer_length 1000; }
    location = /sub { nchan_subscriber websocket; nchan_channel_id presence; }
  }
}
`,
  );
  const c = track(spawn('/usr/sbin/nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' }));
  for (let i = 0; i < 50; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/pub`, { method: 'GET' });
      break;
    } catch {
      await sleep(100);
    }
  }
  return {
    pub: `http://127.0.0.1:${port}/pub`,
    sub: `ws://127.0.0.1:${port}/sub`,
    stop: () => c.pid && process.kill(c.pid, 'SIGTERM'),
  };
}

interface Report {
  single: number[];
  burst: number[];
  doubled: number;
  perSocket: number[];
}

/** Opens the subscribers over the client processes, runs the schedule, gathers the figures. */
async function measure(
  kind: string,
  urls: string[],
  token: string | undefined,
  publish: (i: number, data: unknown) => Promise<void> | void,
) {
  const clients = Array.from({ length: PROCS }, (_, i) =>
    track(
      fork(join(ROOT, 'scripts/bench-realtime-clients.ts'), ['--local', `127.0.0.${10 + i}`], {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    ),
  );
  const opened = performance.now();
  await Promise.all(
    clients.map((c, i) => {
      const count = Math.floor(N / PROCS) + (i < N % PROCS ? 1 : 0);
      // Split evenly over the targets (two instances: half on each).
      const open = urls.map((url, u) => ({
        url,
        count: Math.floor(count / urls.length) + (u < count % urls.length ? 1 : 0),
      }));
      const ready = once<number>(c, 'ready').then((n) => {
        if (n < count) console.error(`${kind}: ${count - n} of ${count} sockets failed to open`);
        return n;
      });
      c.send({ open, kind, token, split: SINGLE });
      return ready;
    }),
  );
  const connectS = (performance.now() - opened) / 1000;
  await sleep(1000);
  const pad = 'x'.repeat(120); // about the size of a PRO_STATUS_CHANGED event
  let seq = 0;
  for (let i = 0; i < SINGLE; i++) {
    seq++;
    await publish(seq, { seq, t: now(), pad });
    await sleep(Number(opt['gap-ms']));
  }
  for (let b = 0; b < BURSTS; b++) {
    const sends: (Promise<void> | void)[] = [];
    for (let i = 0; i < BURST; i++) {
      seq++;
      sends.push(publish(seq, { seq, t: now(), pad }));
    }
    await Promise.all(sends);
    await sleep(200);
  }
  await sleep(Number(opt['drain-ms']));
  const reports = await Promise.all(
    clients.map((c) => {
      const r = once<Report>(c, 'report');
      c.send({ report: true });
      return r;
    }),
  );
  for (const c of clients) c.send({ close: true });
  await sleep(300);
  return { reports, connectS };
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

interface Row {
  name: string;
  single: { p50: number; p99: number };
  burst: { p50: number; p99: number };
  lost: number;
  doubled: number;
  connectS: number;
}

function figures(name: string, m: { reports: Report[]; connectS: number }): Row {
  const delivered = m.reports.reduce((a, r) => a + r.perSocket.reduce((x, y) => x + y, 0), 0);
  const doubled = m.reports.reduce((a, r) => a + r.doubled, 0);
  const single = m.reports.flatMap((r) => r.single);
  const burst = m.reports.flatMap((r) => r.burst);
  return {
    name,
    single: { p50: pct(single, 50), p99: pct(single, 99) },
    burst: { p50: pct(burst, 50), p99: pct(burst, 99) },
    lost: N * TOTAL - delivered,
    doubled,
    connectS: m.connectS,
  };
}

const rows: Row[] = [];
const notes: string[] = [];

if (!skip.has('floor')) {
  const s = server('floor');
  const { port } = await s.ready;
  rows.push(
    figures(
      'floor (bare ws)',
      await measure(
        'floor',
        [`ws://127.0.0.1:${port}/`],
        undefined,
        (_i, data) => void s.c.send({ publish: data }),
      ),
    ),
  );
  process.kill(s.c.pid!, 'SIGTERM');
}

if (!skip.has('nchan')) {
  const n = await startNchan();
  if (typeof n === 'string') notes.push(`nchan: not measured (${n})`);
  else {
    rows.push(
      figures(
        'nchan (nginx, 1 worker)',
        await measure('nchan', [n.sub], undefined, async (_i, data) => {
          await fetch(n.pub, {
            method: 'POST',
            body: JSON.stringify(data),
            headers: { 'content-type': 'application/json' },
          });
        }),
      ),
    );
    n.stop();
  }
}

if (!skip.has('ours1')) {
  const s = server('ours', ['--instance', 'bench-1']);
  const { port, token } = await s.ready;
  rows.push(
    figures(
      'ours, 1 instance (SQLite)',
      await measure(
        'ours',
        [`ws://127.0.0.1:${port}/realtime`],
        token,
        (_i, data) => void s.c.send({ publish: data }),
      ),
    ),
  );
  process.kill(s.c.pid!, 'SIGTERM');
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
    const db = url.toString();
    const a = server('ours', ['--instance', 'bench-a', '--db', db]);
    const ra = await a.ready;
    const b = server('ours', ['--instance', 'bench-b', '--db', db]);
    const rb = await b.ready;
    rows.push(
      figures(
        'ours, 2 instances (PostgreSQL)',
        await measure(
          'ours',
          [`ws://127.0.0.1:${ra.port}/realtime`, `ws://127.0.0.1:${rb.port}/realtime`],
          ra.token,
          (i, data) => void (i % 2 ? a : b).c.send({ publish: data }),
        ),
      ),
    );
    for (const s of [a, b]) {
      const exited = new Promise((r) => s.c.once('exit', r));
      process.kill(s.c.pid!, 'SIGTERM');
      await exited;
    }
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

// --- report ----------------------------------------------------------------------------------
const f = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const floor = rows.find((r) => r.name.startsWith('floor'));
const nchan = rows.find((r) => r.name.startsWith('nchan'));
const lines = [
  `bench:realtime  ${N} subscribers on support:presence, ${SINGLE} single publications (${opt['gap-ms']} ms apart) + ${BURSTS} bursts of ${BURST}; ${PROCS} client processes`,
  '',
  '| target | connect s | single p50 ms | single p99 ms | burst p50 ms | burst p99 ms | p99 / floor (single, burst) | p99 / nchan (single, burst) | lost | doubled |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.connectS.toFixed(1)} | ${f(r.single.p50)} | ${f(r.single.p99)} | ${f(r.burst.p50)} | ${f(r.burst.p99)} | ${
        floor ? `${f(r.single.p99 / floor.single.p99)}, ${f(r.burst.p99 / floor.burst.p99)}` : '-'
      } | ${nchan ? `${f(r.single.p99 / nchan.single.p99)}, ${f(r.burst.p99 / nchan.burst.p99)}` : '-'} | ${r.lost} | ${r.doubled} |`,
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
goal('two instances p99 < 100 ms', two ? worst(two) < 100 : null);
goal(
  'nothing lost or doubled (ours)',
  one || two ? [one, two].every((r) => !r || (r.lost === 0 && r.doubled === 0)) : null,
);
lines.push(...notes);
const text = lines.join('\n');
console.log(text);
if (opt.out) writeFileSync(opt.out, `${text}\n\n${JSON.stringify(rows, null, 2)}\n`);
stopAll();
process.exit(0);
