// The controller side of `npm run bench:agents`: a real controller (createController on a temporary
// SQLite file, system clock, no scheduler) listening on 127.0.0.1, with N allocations whose agents are
// already enrolled (key pairs written straight into the table, no enrolment codes), and a control API
// on another port shaped like the ws peer's (the kit's ws/server.js) so the two read alike:
//   GET /stats[?gc=1]                    {conns, sockets, rss, heapUsed, heapTotal, external, arrayBuffers}
//   GET /rtt?n=1000&mode=serial|burst    router.ping to n distinct random connected agents through
//                                        CommandService, enqueue → DONE per command, in ms
//   GET /enrol                           a fresh allocation and its enrolment code (real agents)
//   GET /holds?id=ALLOCATION             whether this controller holds the agent's link
//   GET /command?id=ALLOCATION&name=N    runs one command and answers its final view
//   GET /profile?action=start|stop&file=F  CPU profile of a window (e.g. one burst) into F (.cpuprofile)
//   GET /heapsnapshot?file=F             a V8 heap snapshot into F (what a connection costs, by type)
// Started by scripts/bench-agents.ts, first with --setup (database, N allocations, the agents file),
// then again to serve with --expose-gc; prints one JSON line when ready.
//   node --import tsx scripts/bench-agents-server.ts --setup --dir DIR [--agents 10000]
//   node --expose-gc --import tsx scripts/bench-agents-server.ts --dir DIR
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';
import {
  constants,
  monitorEventLoopDelay,
  PerformanceObserver,
  type PerformanceEntry,
} from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { pino } from 'pino';
import { loadConfig } from '../controller/config.js';
import { createController } from '../controller/controller.js';
import { AgentSocket } from '../controller/hub/agent-session.js';
import type { CommandView } from '../controller/hub/command-service.js';
import type { AllocationsTable } from '../controller/modules/allocations/tables.js';
import { rttFigures } from './bench-agents-support.js';

const { values: opt } = parseArgs({
  options: {
    dir: { type: 'string' },
    agents: { type: 'string', default: '10000' },
    port: { type: 'string', default: '0' },
    'ctl-port': { type: 'string', default: '0' },
    'log-level': { type: 'string', default: 'warn' },
    'max-seconds': { type: 'string', default: '600' },
    /** Create the database, the allocations and the agents file, then exit. */
    setup: { type: 'boolean', default: false },
  },
});
if (!opt.dir) throw new Error('--dir is required');
const dir = opt.dir;
const agentCount = Number(opt.agents);

// Never outlive the benchmark, whatever happens to the parent.
setTimeout(
  () => {
    console.error('bench server: max-seconds reached, exiting');
    process.exit(1);
  },
  Number(opt['max-seconds']) * 1000,
).unref();

const config = loadConfig(
  {},
  {
    db: `sqlite:${join(dir, 'bench.db')}`,
    dataDir: join(dir, 'data'),
    jwtSecret: 'bench-secret-bench-secret-bench-secret-0123',
    apiQuota: 'off',
    authFailureQuota: 'off',
    moneyQuota: 'off',
    logLevel: opt['log-level'],
    scheduler: false,
    host: '127.0.0.1',
    port: Number(opt.port),
    instanceId: 'bench',
  },
);
// Logs go to stderr: stdout carries the ready line only.
const logger = pino({ name: 'bench-controller', level: config.logLevel }, pino.destination(2));
const controller = await createController({ config, logger });
const { accounts, allocations, commands, hub } = controller.services;
const agentsFile = join(dir, 'agents.json');
const metaFile = join(dir, 'meta.json');

/** One pre-enrolled agent as the client processes need it. */
export interface BenchAgentIdentity {
  agent_id: string;
  allocation_id: string;
  /** Base64, tweetnacl layout (seed then public key), as protocol/ signs with. */
  secret_key: string;
}

// Node's native Ed25519 makes 10k key pairs in well under a second (tweetnacl would take ~10 s).
function keyPair(): { publicKey: string; secretKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  // The raw halves are the last 32 bytes of the PKCS#8 and SPKI encodings.
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const pub = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { publicKey: pub.toString('base64'), secretKey: Buffer.concat([seed, pub]).toString('base64') };
}

/** Creates the client, its allocations and their enrolled agents, then the files the others read. */
async function setup(): Promise<void> {
  const client = await accounts.create({
    email: 'bench-client@example.com',
    password: 'bench-passw0rd',
    name: 'Bench client',
    kind: 'client',
  });
  const now = new Date().toISOString();
  const identities: BenchAgentIdentity[] = [];
  const rows: AllocationsTable[] = [];
  for (let i = 0; i < agentCount; i++) {
    const keys = keyPair();
    const row: AllocationsTable = {
      id: randomUUID(),
      client_id: client.id,
      label: `bench-${i}`,
      created_at: now,
      enrol_code_hash: null,
      enrol_code_expires_at: null,
      enrol_code_used_at: now,
      agent_id: randomUUID(),
      agent_public_key: keys.publicKey,
      enrolled_at: now,
      revoked_at: null,
      router_serial: null,
      router_identity: null,
      router_model: null,
      routeros_version: null,
      architecture: null,
      board_name: null,
      free_hdd_bytes: null,
      total_hdd_bytes: null,
      facts_updated_at: null,
      radius_relay_address: null,
      radius_relay_auth_port: null,
      radius_relay_acct_port: null,
    };
    rows.push(row);
    identities.push({ agent_id: row.agent_id!, allocation_id: row.id, secret_key: keys.secretKey });
  }
  // 20 columns × 500 rows stays below SQLite's bound-parameter limit; one transaction for the lot.
  await controller.database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 500) {
      await trx
        .insertInto('allocations')
        .values(rows.slice(i, i + 500))
        .execute();
    }
  });
  writeFileSync(agentsFile, JSON.stringify({ controller_key: hub.identity.publicKey, agents: identities }));
  writeFileSync(
    metaFile,
    JSON.stringify({ client_id: client.id, allocation_ids: identities.map((a) => a.allocation_id) }),
  );
}

if (opt.setup) {
  // A process of its own: the key pairs and the 10k-row insert leave garbage and a grown heap that
  // would inflate the serving process's 0-connection RSS, which every bytes/connection figure uses.
  await setup();
  await controller.close();
  console.log(JSON.stringify({ setup: true, agents_file: agentsFile, agents: agentCount }));
  process.exit(0);
}
const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { client_id: string; allocation_ids: string[] };
const client = { id: meta.client_id };
const allocationIds = meta.allocation_ids;

const address = await controller.listen();

function rssBytes(): number {
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : process.memoryUsage().rss;
}

function stats(gc: boolean) {
  if (gc && global.gc) {
    global.gc();
    global.gc();
  }
  const m = process.memoryUsage();
  return {
    conns: hub.connectedCount,
    rss: rssBytes(),
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    gc: Boolean(global.gc),
  };
}

/** n distinct random allocations whose link this controller holds (partial Fisher–Yates). */
function pickConnected(n: number): string[] {
  const held = allocationIds.filter((id) => hub.holds(id));
  const count = Math.min(n, held.length);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(Math.random() * (held.length - i));
    [held[i], held[j]] = [held[j]!, held[i]!];
  }
  return held.slice(0, count);
}

/**
 * During a measurement (`on`): when (performance.now() ms) the controller last wrote a frame to an
 * agent (the burst's last command, pings aside: ws pings are not frames) and when the first command
 * came back DONE to its caller.
 */
const pipeline = { on: false, lastSent: 0, firstDone: Infinity };
// The bench watches the hub's sockets write: when a command leaves, not when it was handed over.
const socketSend = AgentSocket.prototype.send;
AgentSocket.prototype.send = function (this: AgentSocket, ...args: Parameters<typeof socketSend>) {
  if (pipeline.on) pipeline.lastSent = performance.now();
  return socketSend.apply(this, args);
} as typeof socketSend;

async function runCommand(allocationId: string, name: string, timeoutMs: number): Promise<CommandView> {
  const queued = await commands.enqueue(client.id, allocationId, name, {}, { timeoutMs });
  const done = await commands.waitForResult(client.id, queued.id, timeoutMs);
  if (done.state === 'DONE') pipeline.firstDone = Math.min(pipeline.firstDone, performance.now());
  return done;
}

/** Windows (performance.now() ms) of the commands slower than SLOW_MS in the current measurement. */
const slowWindows: { start: number; end: number }[] = [];

/** Enqueue → DONE of one router.ping, in ms; null when it did not end DONE in time. */
async function timedPing(allocationId: string, timeoutMs: number): Promise<number | null> {
  const start = performance.now();
  const t0 = process.hrtime.bigint();
  const done = await runCommand(allocationId, 'router.ping', timeoutMs);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (ms > SLOW_MS) slowWindows.push({ start, end: performance.now() });
  return done.state === 'DONE' ? ms : null;
}

/** Time the main thread (the event loop) has run on a CPU, in ns (Linux schedstat, ns precision). */
function mainThreadCpuNs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

// Stalls explain tail latency: event-loop delay and GC pauses during each measurement.
const gcPauses: { start: number; end: number; major: boolean }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    // A gc entry's detail names its kind (minor scavenge, full mark-compact, …).
    const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
    gcPauses.push({
      start: e.startTime,
      end: e.startTime + e.duration,
      major: kind === constants.NODE_PERFORMANCE_GC_MAJOR,
    });
  }
}).observe({ type: 'gc' });
// Commands slower than this count as the tail; the report says how many of them a GC pause hit.
const SLOW_MS = 3;

async function rtt(n: number, mode: string, timeoutMs: number) {
  const targets = pickConnected(n);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // The controller's own CPU time during the measurement: on a shared machine the wall-clock figures
  // move with the neighbours' load, this much less.
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuNs();
  gcPauses.length = 0;
  slowWindows.length = 0;
  pipeline.lastSent = 0;
  pipeline.firstDone = Infinity;
  pipeline.on = true;
  const startedAt = performance.now();
  let latencies: (number | null)[];
  if (mode === 'burst') latencies = await Promise.all(targets.map((id) => timedPing(id, timeoutMs)));
  else {
    latencies = [];
    for (const id of targets) latencies.push(await timedPing(id, timeoutMs));
  }
  loop.disable();
  pipeline.on = false;
  const cpu = process.cpuUsage(cpu0);
  const mainNs = mainThreadCpuNs() - main0;
  return {
    ...rttFigures(latencies, hub.connectedCount, mode),
    cpu_ms: Number(((cpu.user + cpu.system) / 1000).toFixed(1)),
    // The event loop's thread alone: the process figure also counts V8's helper threads (concurrent
    // marking, compilation), which run beside it on another core.
    main_cpu_ms: Number((mainNs / 1e6).toFixed(1)),
    // The kernel's share (socket writes and reads, polling): the peer pays it too.
    cpu_system_ms: Number((cpu.system / 1000).toFixed(1)),
    loop_delay_p99: Number((loop.percentile(99) / 1e6).toFixed(1)),
    loop_delay_max: Number((loop.max / 1e6).toFixed(1)),
    gc_count: gcPauses.length,
    gc_major_count: gcPauses.filter((g) => g.major).length,
    gc_total_ms: Number(gcPauses.reduce((a, g) => a + g.end - g.start, 0).toFixed(1)),
    gc_max_ms: Number(Math.max(0, ...gcPauses.map((g) => g.end - g.start)).toFixed(1)),
    // A pipelined burst answers its first commands before its last ones are sent.
    first_done_ms: Number.isFinite(pipeline.firstDone)
      ? Number((pipeline.firstDone - startedAt).toFixed(1))
      : null,
    last_sent_ms: pipeline.lastSent === 0 ? null : Number((pipeline.lastSent - startedAt).toFixed(1)),
    [`over_${SLOW_MS}ms`]: slowWindows.length,
    [`over_${SLOW_MS}ms_during_gc`]: slowWindows.filter((w) =>
      gcPauses.some((g) => g.start < w.end && g.end > w.start),
    ).length,
  };
}

// The inspector profiles only the window asked for, where --cpu-prof would mix in start-up and handshakes.
let profiler: Session | undefined;
async function profile(action: string, file: string): Promise<unknown> {
  if (action === 'start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.post('Profiler.start');
    return { profiling: true };
  }
  if (!profiler) return { profiling: false };
  const { profile: data } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  profiler = undefined;
  writeFileSync(file, JSON.stringify(data));
  return { profiling: false, file };
}

async function route(url: URL): Promise<unknown> {
  const p = url.searchParams;
  switch (url.pathname) {
    case '/stats':
      return stats(p.get('gc') === '1');
    case '/rtt':
      return rtt(Number(p.get('n') ?? 1000), p.get('mode') ?? 'serial', Number(p.get('timeout') ?? 10_000));
    case '/enrol': {
      const { allocation, enrolment } = await allocations.create(client.id, {
        label: p.get('label') ?? 'agent',
      });
      return { allocation_id: allocation.id, code: enrolment.code };
    }
    case '/holds':
      return { holds: hub.holds(p.get('id') ?? '') };
    case '/command':
      return runCommand(
        p.get('id') ?? '',
        p.get('name') ?? 'router.ping',
        Number(p.get('timeout') ?? 10_000),
      );
    case '/heapsnapshot':
      return { file: writeHeapSnapshot(p.get('file') ?? join(dir, 'bench.heapsnapshot')) };
    case '/profile':
      return profile(p.get('action') ?? 'stop', p.get('file') ?? join(dir, 'bench.cpuprofile'));
    default:
      return undefined;
  }
}

const ctl = createServer((req: IncomingMessage, res: ServerResponse) => {
  route(new URL(req.url ?? '/', 'http://localhost')).then(
    (body) => {
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    },
    (err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }));
    },
  );
});
await new Promise<void>((resolve) => ctl.listen(Number(opt['ctl-port']), '127.0.0.1', resolve));

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  ctl.close();
  // Bounded: a graceful close waits for agents, and the parent does not wait for ever.
  await Promise.race([controller.close(), new Promise((resolve) => setTimeout(resolve, 4000))]);
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('disconnect', () => void stop());

console.log(
  JSON.stringify({
    ready: true,
    pid: process.pid,
    url: `ws://127.0.0.1:${address.port}/agent/v1`,
    http: `http://127.0.0.1:${address.port}`,
    ctl: `http://127.0.0.1:${(ctl.address() as AddressInfo).port}/`,
    agents_file: agentsFile,
    agents: allocationIds.length,
  }),
);
