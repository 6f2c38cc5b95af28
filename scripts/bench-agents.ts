// `npm run bench:agents`: the agent link under load, beside a bare `ws` server measured in the same run.
//   1. agent packaging: node packaging/build-agent.js, bundle and executable size, `--version` start
//      time (median of 5), `status --json` on an empty state directory;
//   2. the peer: ws/bench.js of the peer benchmark kit (the directory TICKETNET_PEER_BENCH names) as
//      it is (1k/5k/10k idle connections, RTT at 10k); `--skip peer` without the kit;
//   2b. the signed floor: scripts/bench-agents-signed-floor.ts, the peer's exchange with an Ed25519
//      signature on every message (same primitives as the link) and nothing else, at the last step;
//      the version 3 floor: the same script with `--kind mac`, one HMAC-SHA256 (session keys from
//      an X25519 exchange per connection) made and checked on every message instead; the stored
//      floor: `--kind stored`, the version 3 floor plus the command's two writes in SQLite (stored
//      before sent, outcome stored before answered), group-committed, with bare statements;
//   3. ours: scripts/bench-agents-server.ts (the controller, --expose-gc) and 4 processes of
//      scripts/bench-agents-clients.ts (127.0.0.10-13, 2,500 real-protocol agents each), grown to
//      1k/5k/10k with a forced GC and the RSS at each step, then router.ping RTT serial and burst over
//      1,000 distinct agents at 10k (for the burst, also when its first result was answered and its
//      last command sent: a pipelined burst answers the first before it sends the last);
//   4. the real agent (agent/cli.ts run, its bundle bare and as shipped with its memory limits, its
//      executable) against a simulated router:
//      idle RSS after 30 s, then one router.ping through each;
//   5. one table, ours beside the peer, with the ratios and PASS/FAIL against the 2x goals.
// Loopback only; a hard time limit; every process started here is stopped by its PID at the end.
// The peer needs `ws`: when the kit has none and cannot install it (a read-only directory), it
// runs with this project's `ws` (same 8.x) through NODE_PATH, and the report says so.
//   node --import tsx scripts/bench-agents.ts [--steps 1000,5000,10000]
//     [--skip peer,floor,v3floor,storedfloor,ours,agent,package] [--rtt-reps 3] (serial and burst repeated; medians)
//     [--warm-reps 3] (unmeasured serial and burst first, on every server)
//     [--profile DIR] (CPU profiles of the controller during serial and burst; slows it)
//     [--heap DIR] (heap snapshots of the controller before any agent and at the last step) [--out FILE]
import { spawn, spawnSync, fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { median } from './bench-support.js';

const ROOT = resolve(import.meta.dirname, '..');
const PEER_DIR = process.env.TICKETNET_PEER_BENCH ?? '';
const BUNDLE_DIR = join(ROOT, 'dist/agent-bundle');
const BUNDLE = join(BUNDLE_DIR, 'ticketnet-agent.cjs');
// The bundle as shipped: node with the packaging's V8, libuv and malloc limits.
const LAUNCHER = join(BUNDLE_DIR, 'ticketnet-agent.sh');
const EXECUTABLE = join(BUNDLE_DIR, 'ticketnet-agent');

const { values: opt } = parseArgs({
  options: {
    steps: { type: 'string', default: '1000,5000,10000' },
    procs: { type: 'string', default: '4' },
    'rtt-n': { type: 'string', default: '1000' },
    /**
     * Serial and burst measured this many times in a row on every server (the peer kit's own default,
     * 3); the table shows each figure's median over them, as the kit's summary does.
     */
    'rtt-reps': { type: 'string', default: '3' },
    /**
     * Serial and burst run this many times, unmeasured, before the measured repetitions on every
     * server: a controller runs for months, and the table is of its steady state, once the JIT has
     * optimised the command path. The peer kit is asked for this many repetitions more and its
     * first ones are set apart alike. The warm-up figures are printed beside the measured ones.
     */
    'warm-reps': { type: 'string', default: '3' },
    'idle-seconds': { type: 'string', default: '30' },
    'settle-seconds': { type: 'string', default: '3' },
    /** Longest wait for a step's connections (a loaded machine handshakes slowly). */
    'connect-seconds': { type: 'string', default: '120' },
    'max-seconds': { type: 'string', default: '570' },
    /** Comma-separated sections to leave out: package, peer, floor, v3floor, storedfloor, ours, agent. */
    skip: { type: 'string', default: '' },
    /** Also write the report (and the raw figures as JSON) to this file. */
    out: { type: 'string' },
    /** Keep the temporary directory (database, logs) for a look afterwards. */
    keep: { type: 'boolean', default: false },
    /**
     * Write CPU profiles of the controller during the serial and the burst measurements into this
     * directory (serial.cpuprofile, burst.cpuprofile). The profiler slows the controller: figures
     * of a profiled run are for finding where time goes, not for the table.
     */
    profile: { type: 'string' },
    /**
     * Write V8 heap snapshots of the controller with no agent linked and at the last step into this
     * directory (base.heapsnapshot, linked.heapsnapshot): what a connection costs, by type.
     */
    heap: { type: 'string' },
  },
});
const steps = opt.steps.split(',').map(Number);
const WARM_REPS = Math.max(0, Number(opt['warm-reps']));
const RTT_REPS = Math.max(1, Number(opt['rtt-reps']));
const maxConns = Math.max(...steps);
const procs = Number(opt.procs);
const skip = new Set(opt.skip.split(',').filter(Boolean));
const maxSeconds = Number(opt['max-seconds']);
const startedAt = Date.now();
const secondsLeft = () => Math.max(10, Math.floor(maxSeconds - (Date.now() - startedAt) / 1000));
const work = mkdtempSync(join(tmpdir(), 'tn-bench-agents-'));

// --- processes: all tracked, all stopped by PID ------------------------------------------------

const children = new Set<ChildProcess>();

function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** PIDs of a process's descendants (peer bench.js forks its own server and clients), deepest first. */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Field 4 of /proc/PID/stat, after the parenthesised command (which may hold spaces).
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === p) {
        walk(child);
        out.push(child);
      }
    }
  };
  walk(pid);
  return out;
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

async function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const pids = [...descendants(child.pid), child.pid];
  for (const pid of pids) killPid(pid, 'SIGTERM');
  if ((await Promise.race([exited.then(() => 'done'), sleep(graceMs)])) !== 'done') {
    for (const pid of pids) killPid(pid, 'SIGKILL');
    await exited;
  }
  // A descendant that ignored SIGTERM while its parent exited must not outlive the run either.
  for (const pid of pids) killPid(pid, 'SIGKILL');
}

async function stopAll(): Promise<void> {
  await Promise.all([...children].map((c) => stopChild(c)));
}

function killAllNow(): void {
  for (const child of children) {
    if (child.pid === undefined) continue;
    for (const pid of [...descendants(child.pid), child.pid]) killPid(pid, 'SIGKILL');
  }
}

// The hard limit: whatever is running is killed and the run fails.
setTimeout(() => {
  console.error(`bench: --max-seconds ${maxSeconds} reached, stopping everything`);
  killAllNow();
  process.exit(1);
}, maxSeconds * 1000).unref();
process.on('SIGINT', () => {
  killAllNow();
  process.exit(130);
});

/** Runs node (or an executable) and collects its stdout; stderr passes through. */
function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
) {
  return new Promise<{ code: number | null; out: string; err: string }>((done) => {
    const child = track(
      spawn(cmd, args, {
        cwd: options.cwd ?? ROOT,
        env: options.env ?? process.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => void stopChild(child), options.timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done({ code, out, err });
    });
  });
}

/** Starts a process whose first stdout line matching `ready` is JSON describing it. */
async function startService(
  cmd: string,
  args: string[],
  ready: RegExp,
  logFile: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const child = track(spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let log = '';
  // Both streams are always drained: a full pipe would block the service's synchronous writes.
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const info = await new Promise<Record<string, unknown>>((resolveInfo, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`${args.join(' ')}: not ready in 120 s\n${log}`)),
      120_000,
    );
    child.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      const line = buffered.split('\n').find((l) => ready.test(l));
      if (line) {
        clearTimeout(timer);
        resolveInfo(JSON.parse(line) as Record<string, unknown>);
      }
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}\n${buffered}${log}`)));
  });
  child.once('exit', () => writeFileSync(logFile, log));
  return { child, info };
}

// The machine may be shared: CPU used by processes outside this run makes its figures noisy, so
// each phase reports it: the machine's busy time (/proc/stat) less what this process and its
// descendants used. The tree is sampled every 250 ms, per PID, because the peer's bench.js exits
// without reaping its server and clients, so their time never reaches anyone's cutime here.
function machineJiffies(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, total };
}

/** utime + stime of one process (fields 14 and 15 of /proc/PID/stat). */
function ownJiffies(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return undefined;
  }
}

/** Starts measuring; the result is the share of the machine's CPU that other processes used. */
function otherCpu(): () => number {
  const m0 = machineJiffies();
  const seen = new Map<number, { first: number; last: number }>();
  const sample = (start: boolean) => {
    for (const pid of [process.pid, ...descendants(process.pid)]) {
      const j = ownJiffies(pid);
      if (j === undefined) continue;
      const s = seen.get(pid);
      if (s) s.last = j;
      else seen.set(pid, { first: start ? j : 0, last: j });
    }
  };
  sample(true);
  const timer = setInterval(() => sample(false), 250);
  return () => {
    clearInterval(timer);
    sample(false);
    const m1 = machineJiffies();
    let ours = 0;
    for (const s of seen.values()) ours += s.last - s.first;
    return Math.max(0, (m1.busy - m0.busy - ours) / Math.max(1, m1.total - m0.total));
  };
}

const getJson = async <T>(base: string, path: string, timeoutMs = 120_000): Promise<T> => {
  const res = await fetch(new URL(path, base), { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

const mib = (bytes: number) => bytes / 2 ** 20;
const rssOf = (pid: number) =>
  1024 * Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

// --- figures ------------------------------------------------------------------------------------

interface StepFigure {
  conns: number;
  rss: number;
  heapUsed: number;
  bytesPerConn: number;
  heapPerConn: number;
  connectSeconds: number | null;
}
interface RttFigure {
  n: number;
  lost: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  /** Ours only: the controller's CPU time (user + system) during the measurement, in ms. */
  cpu_ms?: number;
  /** Ours only: the CPU time of the controller's main thread (the event loop) alone. */
  main_cpu_ms?: number;
  /** Ours only: how many of the GCs were full (mark-compact) collections. */
  gc_major_count?: number;
  cpu_system_ms?: number;
  /** Ours only: stalls during the measurement. */
  loop_delay_p99?: number;
  gc_count?: number;
  gc_total_ms?: number;
  over_3ms?: number;
  over_3ms_during_gc?: number;
  /** Ours only, from the start of the measurement: the first command answered DONE, the last one sent. */
  first_done_ms?: number | null;
  last_sent_ms?: number | null;
}
/** Median of each figure over the repetitions (`--rtt-reps`); commands lost over all of them. */
function medianFigure(reps: RttFigure[]): RttFigure | undefined {
  if (reps.length === 0) return undefined;
  const out: Record<string, unknown> = { ...reps[0] };
  for (const key of Object.keys(reps[0]!) as (keyof RttFigure)[]) {
    const xs = reps.map((r) => r[key]).filter((x): x is number => typeof x === 'number');
    if (xs.length === 0) continue;
    out[key] = key === 'lost' ? xs.reduce((a, x) => a + x, 0) : median(xs);
  }
  return out as unknown as RttFigure;
}

/** Every repetition's figures, the first `--warm-reps` of each mode apart, and the others' medians. */
function afterWarmUp(serial: RttFigure[], burst: RttFigure[]) {
  const [serialReps, burstReps] = [serial.slice(WARM_REPS), burst.slice(WARM_REPS)];
  return {
    serial: medianFigure(serialReps),
    burst: medianFigure(burstReps),
    serialReps,
    burstReps,
    serialWarmUp: serial.slice(0, WARM_REPS),
    burstWarmUp: burst.slice(0, WARM_REPS),
  };
}

/**
 * Serial then burst, `--warm-reps` times unmeasured, then `--rtt-reps` times, on the server behind
 * control URL `ctl`.
 */
async function measureRtt(
  ctl: string,
  wrap: <T>(name: string, measure: () => Promise<T>, last: boolean) => Promise<T> = (_n, m) => m(),
) {
  const reps = WARM_REPS + RTT_REPS;
  const serial: RttFigure[] = [];
  const burst: RttFigure[] = [];
  for (let i = 0; i < reps; i++) {
    const last = i === reps - 1;
    serial.push(
      await wrap('serial', () => getJson<RttFigure>(ctl, `/rtt?n=${opt['rtt-n']}&mode=serial`), last),
    );
    burst.push(
      await wrap(
        'burst',
        () => getJson<RttFigure>(ctl, `/rtt?n=${opt['rtt-n']}&mode=burst&timeout=30000`),
        last,
      ),
    );
  }
  return afterWarmUp(serial, burst);
}

interface ServerFigures {
  /** Share of the machine's CPU used by processes outside this run while it measured. */
  otherCpu?: number;
  base: { rss: number; heapUsed: number };
  steps: StepFigure[];
  /** Medians over the repetitions (`--rtt-reps`). */
  serial?: RttFigure;
  burst?: RttFigure;
  /** Each repetition, in order. */
  serialReps?: RttFigure[];
  burstReps?: RttFigure[];
  /** The unmeasured repetitions before them (`--warm-reps`), in order. */
  serialWarmUp?: RttFigure[];
  burstWarmUp?: RttFigure[];
  failed?: number;
}
interface AgentFigures {
  bundleBytes?: number;
  executableBytes?: number;
  startMs?: { executable: number; bundle: number; runs: number[] };
  status?: { code: number | null; ok: boolean; note: string };
  idle?: { variant: string; rssBytes: number | null; ping: string }[];
  problems: string[];
}

const report: {
  peer?: ServerFigures;
  floor?: ServerFigures;
  macFloor?: ServerFigures;
  storedFloor?: ServerFigures;
  ours?: ServerFigures;
  agent: AgentFigures;
  notes: string[];
} = {
  agent: { problems: [] },
  notes: [],
};

// --- 1. packaging -------------------------------------------------------------------------------

async function packaging(): Promise<void> {
  const a = report.agent;
  const built = await run(process.execPath, ['packaging/build-agent.js'], { timeoutMs: 180_000 });
  if (built.code !== 0 || !existsSync(EXECUTABLE)) {
    a.problems.push(
      `build-agent.js exited ${built.code}: ${built.err.trim().split('\n').slice(-3).join(' | ')}`,
    );
    return;
  }
  a.bundleBytes = statSync(BUNDLE).size;
  a.executableBytes = statSync(EXECUTABLE).size;
  const timeOne = (cmd: string, args: string[]) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20_000 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0 || !/^\d+\.\d+\.\d+/.test(r.stdout)) a.problems.push(`${cmd} --version: ${r.stderr}`);
    if (r.stderr.trim())
      a.problems.push(`${cmd} --version wrote to stderr: ${r.stderr.trim().split('\n')[0]}`);
    return ms;
  };
  // One untimed run each, so the page cache holds the 95 MiB executable as it would on a router.
  timeOne(EXECUTABLE, ['--version']);
  timeOne(process.execPath, [BUNDLE, '--version']);
  const exeRuns = Array.from({ length: 5 }, () => timeOne(EXECUTABLE, ['--version']));
  const bundleRuns = Array.from({ length: 5 }, () => timeOne(process.execPath, [BUNDLE, '--version']));
  a.startMs = { executable: median(exeRuns), bundle: median(bundleRuns), runs: exeRuns };

  const stateDir = join(work, 'empty-state');
  // Port 1 on loopback refuses at once: status must report the router unreachable, not hang.
  const status = spawnSync(EXECUTABLE, ['--state-dir', stateDir, 'status', '--json', '--router-port', '1'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  let note: string;
  let ok = false;
  try {
    const parsed = JSON.parse(status.stdout) as { enrolled: boolean; router: { reachable: boolean } };
    ok = parsed.enrolled === false && parsed.router.reachable === false && status.status === 1;
    note = `exit ${status.status}, enrolled=${parsed.enrolled}, router reachable=${parsed.router.reachable}`;
  } catch {
    note = `exit ${status.status}, not JSON: ${status.stdout.slice(0, 200)} ${status.stderr.slice(0, 200)}`;
  }
  a.status = { code: status.status, ok, note };
}

// --- 2. the peer --------------------------------------------------------------------------------

/**
 * The environment the peer runs in. It needs `ws`: its own install when it has one, else, when its
 * directory is read-only, this project's `ws` (the same 8.x release)
 * through NODE_PATH, which its CommonJS `require` honours.
 */
function peerEnv(): NodeJS.ProcessEnv {
  if (!PEER_DIR) throw new Error('set TICKETNET_PEER_BENCH to the peer benchmark kit, or pass --skip peer');
  if (existsSync(join(PEER_DIR, 'node_modules/ws/package.json'))) return process.env;
  const installed = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: PEER_DIR,
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (installed.status === 0) return process.env;
  const ours = join(ROOT, 'node_modules');
  if (!existsSync(join(ours, 'ws/package.json'))) {
    throw new Error(`npm install in ${PEER_DIR} failed: ${installed.stderr}`);
  }
  const version = (JSON.parse(readFileSync(join(ours, 'ws/package.json'), 'utf8')) as { version: string })
    .version;
  report.notes.push(
    `peer: ${PEER_DIR} has no ws and cannot install it; it ran with this project's ws ${version}`,
  );
  const nodePath = [ours, process.env.NODE_PATH].filter(Boolean).join(':');
  return { ...process.env, NODE_PATH: nodePath };
}

async function peer(): Promise<void> {
  const env = peerEnv();
  const limit = Math.min(300, secondsLeft() - 60);
  const other = otherCpu();
  const r = await run(
    process.execPath,
    [
      join(PEER_DIR, 'ws/bench.js'),
      '--steps',
      opt.steps,
      '--runs',
      '1',
      // Its own repetitions warm it as ours are warmed; the first `--warm-reps` are set apart.
      '--rtt-reps',
      String(WARM_REPS + RTT_REPS),
      '--rtt-n',
      opt['rtt-n'],
      '--max-seconds',
      String(limit),
    ],
    { cwd: join(PEER_DIR, 'ws'), timeoutMs: (limit + 15) * 1000, env },
  );
  const line = r.out.split('\n').find((l) => l.startsWith('{"run"'));
  if (r.code !== 0 || !line) throw new Error(`peer bench.js exited ${r.code}: ${r.err}`);
  const run1 = JSON.parse(line) as {
    base: { rss: number; heapUsed: number };
    steps: {
      conns: number;
      rss: number;
      heapUsed: number;
      bytes_per_conn_rss: number;
      bytes_per_conn_heap: number;
      connect_s: number;
    }[];
    rtt: (RttFigure & { mode: string })[];
  };
  report.peer = {
    otherCpu: other(),
    base: run1.base,
    steps: run1.steps.map((s) => ({
      conns: s.conns,
      rss: s.rss,
      heapUsed: s.heapUsed,
      bytesPerConn: s.bytes_per_conn_rss,
      heapPerConn: s.bytes_per_conn_heap,
      connectSeconds: s.connect_s,
    })),
    ...afterWarmUp(
      run1.rtt.filter((x) => x.mode === 'serial'),
      run1.rtt.filter((x) => x.mode === 'burst'),
    ),
  };
}

// --- 3. ours ------------------------------------------------------------------------------------

interface ServerInfo {
  pid: number;
  url: string;
  http: string;
  ctl: string;
  agents_file: string;
}
interface Stats {
  conns: number;
  rss: number;
  heapUsed: number;
}

async function startServer(): Promise<{ child: ChildProcess; info: ServerInfo }> {
  const dir = join(work, 'controller');
  const script = 'scripts/bench-agents-server.ts';
  const setup = await run(
    process.execPath,
    ['--import', 'tsx', script, '--setup', '--dir', dir, '--agents', String(maxConns)],
    { timeoutMs: 120_000 },
  );
  if (setup.code !== 0) throw new Error(`bench server --setup exited ${setup.code}: ${setup.err}`);
  const { child, info } = await startService(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', script, '--dir', dir, '--max-seconds', String(secondsLeft())],
    /"ready":true/,
    join(work, 'controller.log'),
  );
  return { child, info: info as unknown as ServerInfo };
}

async function ours(server: ServerInfo): Promise<void> {
  const perProc = Math.ceil(maxConns / procs);
  const state = new Map<ChildProcess, { open: number; failed: number; refused: number }>();
  const workers = Array.from({ length: procs }, (_, i) => {
    const w = track(
      fork(
        join(ROOT, 'scripts/bench-agents-clients.ts'),
        [
          '--url',
          server.url,
          '--agents',
          server.agents_file,
          '--from',
          String(i * perProc),
          '--count',
          String(perProc),
          '--local',
          `127.0.0.${10 + i}`,
          '--max-seconds',
          String(secondsLeft()),
        ],
        { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
      ),
    );
    state.set(w, { open: 0, failed: 0, refused: 0 });
    w.on('message', (m: { open: number; failed: number; refused: number }) => state.set(w, m));
    return w;
  });
  await sleep(2000);
  const other = otherCpu();
  const base = await getJson<Stats>(server.ctl, '/stats?gc=1');
  const snapshot = async (name: string) => {
    if (!opt.heap) return;
    const file = join(resolve(opt.heap), `${name}.heapsnapshot`);
    await getJson(server.ctl, `/heapsnapshot?file=${encodeURIComponent(file)}`);
    report.notes.push(`heap snapshot: ${file}`);
  };
  await snapshot('base');
  const figures: ServerFigures = { base, steps: [] };
  report.ours = figures;
  for (const n of steps) {
    const step = await growTo(server.ctl, workers, n, base, 'ours', () => {
      const sum = (k: 'open' | 'failed' | 'refused') => [...state.values()].reduce((a, s) => a + s[k], 0);
      return `clients: open ${sum('open')}, failed ${sum('failed')}, refused ${sum('refused')}`;
    });
    figures.steps.push(step);
    console.error(
      `ours: ${step.conns} agents linked in ${step.connectSeconds!.toFixed(1)} s, RSS ${mib(step.rss).toFixed(1)} MiB`,
    );
  }
  await snapshot('linked');
  const profiled = async <T>(name: string, measure: () => Promise<T>): Promise<T> => {
    if (!opt.profile) return measure();
    const file = join(resolve(opt.profile), `${name}.cpuprofile`);
    await getJson(server.ctl, '/profile?action=start');
    try {
      return await measure();
    } finally {
      await getJson(server.ctl, `/profile?action=stop&file=${encodeURIComponent(file)}`);
      report.notes.push(`profiled (figures slowed by the profiler): ${file}`);
    }
  };
  // The last repetition is the one profiled: the steady state, not the JIT warming up.
  Object.assign(
    figures,
    await measureRtt(server.ctl, (name, measure, last) => (last ? profiled(name, measure) : measure())),
  );
  figures.failed = [...state.values()].reduce((a, s) => a + s.failed, 0);
  figures.otherCpu = other();
  for (const w of workers) w.send({ stop: true });
  await sleep(500);
  await Promise.all(workers.map((w) => stopChild(w)));
  // The controller releases 10k links (one UPDATE each); the agent phase wants a quiet controller.
  const t0 = Date.now();
  while ((await getJson<Stats>(server.ctl, '/stats')).conns > 0 && Date.now() - t0 < 60_000) await sleep(200);
}

/**
 * Grows the forked client processes to `n` connections in all, lets them settle, and reads the
 * server's figures for that step.
 */
async function growTo(
  ctl: string,
  workers: ChildProcess[],
  n: number,
  base: Stats,
  who: string,
  progress?: () => string,
) {
  workers.forEach((w, i) => w.send({ target: Math.floor(n / procs) + (i < n % procs ? 1 : 0) }));
  const t0 = Date.now();
  let toldAt = t0;
  for (let conns = 0; (conns = (await getJson<Stats>(ctl, '/stats')).conns) < n;) {
    if (Date.now() - t0 > Number(opt['connect-seconds']) * 1000)
      throw new Error(`${who}: could not reach ${n} connections in ${opt['connect-seconds']} s`);
    // A slow step says how far it got, so a stall shows whether links fail or just come slowly.
    if (Date.now() - toldAt > 10_000) {
      toldAt = Date.now();
      console.error(
        `${who}: ${conns} linked after ${Math.round((toldAt - t0) / 1000)} s ${progress?.() ?? ''}`,
      );
    }
    await sleep(200);
  }
  const connectSeconds = (Date.now() - t0) / 1000;
  await sleep(Number(opt['settle-seconds']) * 1000);
  const s = await getJson<Stats>(ctl, '/stats?gc=1');
  const step: StepFigure = {
    conns: s.conns,
    rss: s.rss,
    heapUsed: s.heapUsed,
    bytesPerConn: Math.round((s.rss - base.rss) / s.conns),
    heapPerConn: Math.round((s.heapUsed - base.heapUsed) / s.conns),
    connectSeconds,
  };
  return step;
}

// --- 2b. the signed floor ------------------------------------------------------------------------

/** The floors: their name in the table, the `--skip` word that leaves them out, where their figures go. */
const FLOORS = {
  signed: { name: 'signed floor', skip: 'floor', figures: 'floor' },
  mac: { name: 'v3 floor', skip: 'v3floor', figures: 'macFloor' },
  stored: { name: 'stored floor', skip: 'storedfloor', figures: 'storedFloor' },
} as const;

async function signedFloor(kind: keyof typeof FLOORS): Promise<void> {
  const script = join(ROOT, 'scripts/bench-agents-signed-floor.ts');
  const { name } = FLOORS[kind];
  const { child, info } = await startService(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      script,
      '--role',
      'server',
      '--kind',
      kind,
      '--max-seconds',
      String(secondsLeft()),
    ],
    /"ready":true/,
    join(work, `${kind}-floor.log`),
  );
  const server = info as { url: string; ctl: string; server_key: string };
  const state = new Map<ChildProcess, { open: number; failed: number }>();
  const workers = Array.from({ length: procs }, (_, i) => {
    const w = track(
      fork(
        script,
        [
          '--role',
          'clients',
          '--kind',
          kind,
          '--url',
          server.url,
          '--server-key',
          server.server_key,
          '--local',
          `127.0.0.${10 + i}`,
          '--max-seconds',
          String(secondsLeft()),
        ],
        { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
      ),
    );
    state.set(w, { open: 0, failed: 0 });
    w.on('message', (m: { open: number; failed: number }) => state.set(w, m));
    return w;
  });
  try {
    await sleep(1000);
    const other = otherCpu();
    const base = await getJson<Stats>(server.ctl, '/stats?gc=1');
    const figures: ServerFigures = {
      base,
      steps: [await growTo(server.ctl, workers, maxConns, base, name)],
      ...(await measureRtt(server.ctl)),
      failed: [...state.values()].reduce((a, x) => a + x.failed, 0),
    };
    figures.otherCpu = other();
    report[FLOORS[kind].figures] = figures;
  } finally {
    for (const w of workers) w.send({ stop: true });
    await sleep(500);
    await Promise.all([...workers, child].map((c) => stopChild(c)));
  }
}

// --- 4. the real agent --------------------------------------------------------------------------

async function realAgents(server: ServerInfo): Promise<void> {
  const a = report.agent;
  const password = 'bench-router-pw';
  const sim = await startService(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/routeros-sim/main.ts',
      '--port',
      '0',
      '--serial',
      'B3C4D5E6F7',
      '--password',
      password,
    ],
    /"event":"listening"/,
    join(work, 'routeros-sim.log'),
  );
  const simPort = String(sim.info.port);
  const variants: { variant: string; cmd: string; args: string[] }[] = [
    {
      variant: 'agent/cli.ts (node --import tsx)',
      cmd: process.execPath,
      args: ['--import', 'tsx', 'agent/cli.ts'],
    },
  ];
  if (existsSync(BUNDLE))
    variants.push({ variant: 'bundle (node ticketnet-agent.cjs)', cmd: process.execPath, args: [BUNDLE] });
  if (existsSync(LAUNCHER))
    variants.push({
      variant: 'bundle as shipped (ticketnet-agent.sh, memory limits)',
      cmd: LAUNCHER,
      args: [],
    });
  if (existsSync(EXECUTABLE))
    variants.push({ variant: 'executable (ticketnet-agent)', cmd: EXECUTABLE, args: [] });

  const running: { variant: string; child: ChildProcess; allocationId: string }[] = [];
  for (const v of variants) {
    const { allocation_id: allocationId, code } = await getJson<{ allocation_id: string; code: string }>(
      server.ctl,
      '/enrol',
    );
    const index = running.length;
    const stateDir = join(work, `agent-${index}`);
    const child = track(
      spawn(
        v.cmd,
        [
          ...v.args,
          '--state-dir',
          stateDir,
          'run',
          '--controller',
          server.http,
          '--code',
          code,
          '--router-host',
          '127.0.0.1',
          '--router-port',
          simPort,
          '--log-level',
          'warn',
        ],
        {
          cwd: ROOT,
          env: { ...process.env, TICKETNET_ROUTER_PASSWORD: password },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    );
    let log = '';
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    child.once('exit', () => writeFileSync(join(work, `agent-${index}.log`), log));
    running.push({ variant: v.variant, child, allocationId });
  }
  for (const r of running) {
    const t0 = Date.now();
    while (!(await getJson<{ holds: boolean }>(server.ctl, `/holds?id=${r.allocationId}`)).holds) {
      if (Date.now() - t0 > 30_000 || r.child.exitCode !== null) {
        a.problems.push(`${r.variant}: not linked within 30 s (exit ${r.child.exitCode})`);
        break;
      }
      await sleep(200);
    }
  }
  await sleep(Number(opt['idle-seconds']) * 1000);
  a.idle = [];
  for (const r of running) {
    const alive = r.child.exitCode === null && r.child.pid !== undefined;
    const rssBytes = alive ? rssOf(r.child.pid!) : null;
    let ping = 'not run';
    if (alive) {
      const view = await getJson<{ state: string; output: unknown; fault: { code: string } | null }>(
        server.ctl,
        `/command?id=${r.allocationId}&name=router.ping&timeout=15000`,
      );
      ping =
        view.state === 'DONE'
          ? `DONE ${JSON.stringify(view.output)}`
          : `${view.state} ${view.fault?.code ?? ''}`;
    }
    a.idle.push({ variant: r.variant, rssBytes, ping });
  }
  await Promise.all(running.map((r) => stopChild(r.child, 5000)));
  await stopChild(sim.child);
}

// --- 5. the table -------------------------------------------------------------------------------

const fmtInt = (x: number) => Math.round(x).toLocaleString('en-US');
const fmtMs = (x: number | null | undefined) =>
  x === null || x === undefined ? '-' : x.toFixed(x < 10 ? 3 : 1);

function table(): string {
  const lines: string[] = [];
  const head = [
    'server',
    'connections',
    'RSS MiB',
    'bytes/conn',
    'heap B/conn',
    'serial p50',
    'serial p99',
    'burst p50',
    'burst p99',
  ];
  const rows: string[][] = [];
  const add = (name: string, f: ServerFigures | undefined) => {
    if (!f) return;
    rows.push([name, '0', mib(f.base.rss).toFixed(1), '-', '-', '', '', '', '']);
    f.steps.forEach((s, i) => {
      const last = i === f.steps.length - 1;
      rows.push([
        name,
        fmtInt(s.conns),
        mib(s.rss).toFixed(1),
        fmtInt(s.bytesPerConn),
        fmtInt(s.heapPerConn),
        last ? fmtMs(f.serial?.p50) : '',
        last ? fmtMs(f.serial?.p99) : '',
        last ? fmtMs(f.burst?.p50) : '',
        last ? fmtMs(f.burst?.p99) : '',
      ]);
    });
  };
  add('ws peer', report.peer);
  add('signed floor', report.floor);
  add('v3 floor', report.macFloor);
  add('stored floor', report.storedFloor);
  add('ticketnet', report.ours);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  lines.push(
    `agent link at ${fmtInt(maxConns)} connections: ticketnet controller vs bare ws server, same run`,
  );
  lines.push(fmt(head));
  lines.push(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) lines.push(fmt(r));
  lines.push(
    `(RTT in ms, medians of ${RTT_REPS} repetitions, after ${WARM_REPS} unmeasured ones: ws peer = send → ack of a 60-byte JSON; ticketnet = enqueue → DONE of router.ping`,
  );
  lines.push(
    ' through CommandService: version 3 command, ack and result (one MAC each), each state stored in SQLite;',
  );
  lines.push(
    ' signed floor = the peer exchange with an Ed25519 signature made and checked on every message;',
  );
  lines.push(' v3 floor = the same exchange with one HMAC-SHA256 (X25519 + HKDF session keys) per message;');
  lines.push(
    ' stored floor = the v3 floor with the command stored before it is sent and its answer before it is taken, group-committed in SQLite)',
  );

  const { peer: p, ours: o } = report;
  // The goals: serial and burst p99 at most this many times the peer's.
  const SERIAL_BOUND = 1.5;
  const BURST_BOUND = 2;
  if (p && o && p.steps.length && o.steps.length) {
    lines.push('');
    lines.push(`goals at ${fmtInt(maxConns)} (ours / peer, each against its own bound):`);
    const check = (
      what: string,
      ours: number | null | undefined,
      theirs: number | null | undefined,
      unit: string,
      bound: number,
    ) => {
      if (ours == null || theirs == null) return lines.push(`  ${what.padEnd(22)} n/a`);
      const ratio = ours / theirs;
      lines.push(
        `  ${what.padEnd(22)} ${fmtMs(ours).padStart(9)} vs ${fmtMs(theirs).padStart(8)} ${unit.padEnd(10)} ${ratio.toFixed(2).padStart(6)}x  ${ratio <= bound ? 'PASS' : 'FAIL'} (<= ${bound}x)`,
      );
    };
    const po = o.steps[o.steps.length - 1]!;
    const pp = p.steps[p.steps.length - 1]!;
    check('RSS per connection', po.bytesPerConn, pp.bytesPerConn, 'bytes', 1);
    check('serial RTT p99', o.serial?.p99, p.serial?.p99, 'ms', SERIAL_BOUND);
    check('burst RTT p99', o.burst?.p99, p.burst?.p99, 'ms', BURST_BOUND);
    lines.push(
      `  lost commands: ours ${o.serial?.lost ?? '-'} serial / ${o.burst?.lost ?? '-'} burst; peer ${p.serial?.lost ?? '-'} / ${p.burst?.lost ?? '-'}; agent connections that failed: ${o.failed ?? '-'}`,
    );
    const ratio = (a?: number | null, b?: number | null) =>
      a == null || b == null ? '-' : `${(a / b).toFixed(2)}x`;
    // A floor read against our own goal: a goal its floor misses in a run is beyond any controller
    // doing that floor's work (and more) on this machine in that run.
    const judged = (a: number | null | undefined, b: number | null | undefined, bound: number) =>
      a == null || b == null ? '-' : `${ratio(a, b)} ${a / b <= bound ? 'PASS' : 'FAIL'}`;
    const m = report.macFloor;
    if (m) {
      lines.push(
        `  v3 floor / peer: serial p99 ${judged(m.serial?.p99, p.serial?.p99, SERIAL_BOUND)}, burst p99 ${judged(m.burst?.p99, p.burst?.p99, BURST_BOUND)}, bytes/conn ${ratio(m.steps.at(-1)?.bytesPerConn, pp.bytesPerConn)} (lost ${m.serial?.lost ?? '-'} / ${m.burst?.lost ?? '-'})`,
      );
    }
    const st = report.storedFloor;
    if (st) {
      lines.push(
        `  stored floor / peer: serial p99 ${judged(st.serial?.p99, p.serial?.p99, SERIAL_BOUND)}, burst p99 ${judged(st.burst?.p99, p.burst?.p99, BURST_BOUND)} (lost ${st.serial?.lost ?? '-'} / ${st.burst?.lost ?? '-'}); ours / stored floor: serial p99 ${ratio(o.serial?.p99, st.serial?.p99)}, burst p99 ${ratio(o.burst?.p99, st.burst?.p99)}`,
      );
    }
    const f = report.floor;
    if (f) {
      lines.push(
        `  signed floor / peer: serial p99 ${ratio(f.serial?.p99, p.serial?.p99)}, burst p99 ${ratio(f.burst?.p99, p.burst?.p99)} (lost ${f.serial?.lost ?? '-'} / ${f.burst?.lost ?? '-'})`,
      );
      for (const mode of ['serial', 'burst'] as const) {
        const floorP99 = f[mode]?.p99;
        const peerP99 = p[mode]?.p99;
        if (floorP99 != null && peerP99 != null && floorP99 > 2 * peerP99)
          lines.push(
            `  the ${mode} goal is under the signed floor: signing every message alone takes this machine past 2x the bare server`,
          );
      }
    }
    const connect = (f: ServerFigures) => f.steps.map((s) => (s.connectSeconds ?? 0).toFixed(1)).join('/');
    lines.push(`  time to grow to ${opt.steps} (s): ours ${connect(o)}, peer ${connect(p)}`);
  }
  // Printed with or without the peer: CPU per command is the figure that resists a loaded machine.
  const tail = (r?: RttFigure) =>
    r?.gc_count === undefined
      ? '-'
      : `controller CPU ${fmtMs(r.cpu_ms)} ms (${r.cpu_ms === undefined || !r.n ? '-' : fmtMs(r.cpu_ms / r.n)} ms per command, ${fmtMs(r.cpu_system_ms)} ms of it in the kernel; main thread ${r.main_cpu_ms === undefined || !r.n ? '-' : fmtMs(r.main_cpu_ms / r.n)} ms per command), p90 ${fmtMs(r.p90)} ms, ${r.over_3ms} of ${r.n} over 3 ms (${r.over_3ms_during_gc} during a GC pause), ${r.gc_count} GCs (${r.gc_major_count ?? '-'} full) ${fmtMs(r.gc_total_ms)} ms, event-loop delay p99 ${fmtMs(r.loop_delay_p99)} ms`;
  if (report.ours) {
    lines.push(`  ours, serial: ${tail(report.ours.serial)}`);
    lines.push(`  ours, burst:  ${tail(report.ours.burst)}`);
  }
  // Every repetition, the warm-up's first (`[…] then`): those run on code the JIT has not optimised
  // yet (ours has far more of it than the floors and the peer).
  type Reps = 'serialReps' | 'burstReps' | 'serialWarmUp' | 'burstWarmUp';
  type RepKey = 'p99' | 'cpu_ms' | 'main_cpu_ms';
  const byRep = (f: ServerFigures | undefined, mode: Reps, key: RepKey) =>
    f?.[mode]?.map((r) => (key === 'p99' ? r.p99 : r[key] === undefined ? undefined : r[key] / r.n)) ?? [];
  const reps = (label: string, f: ServerFigures | undefined, mode: 'serial' | 'burst', key: RepKey) => {
    const measured = byRep(f, `${mode}Reps`, key);
    const warmUp = byRep(f, `${mode}WarmUp`, key);
    if (measured.length + warmUp.length < 2) return '';
    const list = (xs: (number | null | undefined)[]) => xs.map(fmtMs).join(' / ');
    return `${label} ${warmUp.length > 0 ? `[${list(warmUp)}] then ` : ''}${list(measured)}`;
  };
  for (const mode of ['serial', 'burst'] as const) {
    const parts = [
      reps('ours p99', report.ours, mode, 'p99'),
      reps('peer p99', report.peer, mode, 'p99'),
      reps('stored floor p99', report.storedFloor, mode, 'p99'),
      reps('ours CPU per command', report.ours, mode, 'cpu_ms'),
      reps('ours main thread per command', report.ours, mode, 'main_cpu_ms'),
    ].filter(Boolean);
    if (parts.length > 0) lines.push(`  ${mode} by repetition (ms, [warm-up]): ${parts.join('; ')}`);
  }
  const burst = report.ours?.burst;
  if (burst?.first_done_ms !== undefined)
    lines.push(
      `  ours, burst pipelining: first result answered at ${fmtMs(burst.first_done_ms)} ms, last command sent at ${fmtMs(burst.last_sent_ms)} ms`,
    );
  const noisy = [report.peer, report.floor, report.macFloor, report.storedFloor, report.ours].some(
    (f) => (f?.otherCpu ?? 0) > 0.05,
  );
  if (report.peer || report.ours) {
    const pct = (f?: ServerFigures) =>
      f?.otherCpu === undefined ? '-' : `${(100 * f.otherCpu).toFixed(0)}%`;
    lines.push(
      `  CPU used by other processes on this machine while measuring: peer ${pct(report.peer)}, signed floor ${pct(report.floor)}, v3 floor ${pct(report.macFloor)}, stored floor ${pct(report.storedFloor)}, ours ${pct(report.ours)}${noisy ? '  (NOISY: run again on a quiet machine)' : ''}`,
    );
  }

  const a = report.agent;
  lines.push('');
  lines.push('agent');
  if (a.bundleBytes !== undefined)
    lines.push(`  bundle       ${BUNDLE.replace(ROOT + '/', '')}  ${mib(a.bundleBytes).toFixed(2)} MiB`);
  if (a.executableBytes !== undefined)
    lines.push(
      `  executable   ${EXECUTABLE.replace(ROOT + '/', '')}  ${mib(a.executableBytes).toFixed(1)} MiB`,
    );
  if (a.startMs)
    lines.push(
      `  start time   ticketnet-agent --version ${a.startMs.executable.toFixed(0)} ms (median of 5: ${a.startMs.runs.map((x) => x.toFixed(0)).join(', ')}); node ticketnet-agent.cjs --version ${a.startMs.bundle.toFixed(0)} ms`,
    );
  if (a.status)
    lines.push(`  status --json, empty state dir: ${a.status.ok ? 'OK' : 'FAILED'} (${a.status.note})`);
  for (const i of a.idle ?? [])
    lines.push(
      `  idle RSS after ${opt['idle-seconds']} s linked: ${(i.rssBytes === null ? '-' : mib(i.rssBytes).toFixed(1) + ' MiB').padStart(9)}  ${i.variant}; router.ping ${i.ping}`,
    );
  for (const problem of a.problems) lines.push(`  PROBLEM: ${problem}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  return lines.join('\n');
}

// --- main ---------------------------------------------------------------------------------------

let exitCode = 0;
try {
  if (!skip.has('package')) {
    console.error('bench: packaging the agent');
    await packaging();
  }
  if (!skip.has('peer')) {
    console.error(`bench: the peer (bare ws server), ${opt.steps}`);
    try {
      await peer();
    } catch (err) {
      report.notes.push(`peer failed: ${(err as Error).message}`);
      exitCode = 1;
    }
  }
  for (const kind of ['signed', 'mac', 'stored'] as const) {
    const { name } = FLOORS[kind];
    if (skip.has(FLOORS[kind].skip)) continue;
    console.error(`bench: the ${name}, ${fmtInt(maxConns)}`);
    try {
      await signedFloor(kind);
    } catch (err) {
      report.notes.push(`${name} failed: ${(err as Error).message}`);
      exitCode = 1;
    }
  }
  if (!skip.has('ours') || !skip.has('agent')) {
    console.error('bench: the controller');
    const server = await startServer();
    try {
      if (!skip.has('ours')) await ours(server.info);
      if (!skip.has('agent')) {
        console.error(`bench: the real agent, ${opt['idle-seconds']} s idle`);
        await realAgents(server.info);
      }
    } finally {
      await stopChild(server.child, 8000);
    }
  }
} catch (err) {
  console.error(err);
  report.notes.push(`run failed: ${(err as Error).message.split('\n')[0]}`);
  exitCode = 1;
} finally {
  await stopAll();
}
const text = table();
console.log(text);
if (opt.out) writeFileSync(opt.out, `${text}\n\n${JSON.stringify(report, null, 1)}\n`);
if (opt.keep) console.error(`bench: kept ${work}`);
else rmSync(work, { recursive: true, force: true });
process.exit(exitCode);
