// `npm run bench:agent-soak`: the packaged site agent's memory, idle and in a long run.
//   1. packaging: node packaging/build-agent.js (the bundle, its launcher and the single executable);
//   2. idle: the agent as shipped (the bundle's launcher, the executable with the environment of the
//      systemd unit) and as started bare (node ticketnet-agent.cjs, the executable alone), each
//      enrolled next to a RouterOS simulator; RSS after --idle-seconds linked;
//   3. bulk: a hotspot.users.export of --bulk-accounts accounts (what a migration to RADIUS starts
//      with) through the shipped agent and the bare bundle: wall time and RSS peak, to see what the
//      limits (an interpreter only, a 32 MiB old space) cost on the heaviest command;
//   4. soak: the shipped agent for --minutes inside a memory cgroup of --limit-mib (where this
//      machine lets us create one under our own cgroup; else its RSS is only compared with the
//      limit), reaching the controller through a loopback TCP relay. A router.ping command every
//      --command-every seconds, telemetry every --telemetry-every seconds, every connection of the
//      relay cut every --cut-every seconds. Printed: RSS (max, final), the cgroup's peak and OOM
//      kills, reconnects, commands lost or run twice, reports stored by the agent and not received
//      by the controller.
// The controller (SQLite), the simulator and the agents are separate processes (the controller and
// simulator from the TypeScript sources, as the end-to-end tests start them); each is stopped by
// its PID at the end.
//   node --import tsx scripts/bench-agent-soak.ts [--minutes 60] [--command-every 1]
//     [--telemetry-every 60] [--cut-every 600] [--limit-mib 64] [--idle-seconds 30]
//     [--bulk-accounts 15000] [--variant launcher|executable] [--skip package,idle,bulk,soak] [--out FILE]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { ROUTER_PASSWORD, ROUTER_USER, Stack, type SimProcess } from '../test/e2e/e2e-stack.js';

const ROOT = resolve(import.meta.dirname, '..');
const BUNDLE_DIR = join(ROOT, 'dist/agent-bundle');
const BUNDLE = join(BUNDLE_DIR, 'ticketnet-agent.cjs');
const LAUNCHER = join(BUNDLE_DIR, 'ticketnet-agent.sh');
const EXECUTABLE = join(BUNDLE_DIR, 'ticketnet-agent');
const UNIT = join(ROOT, 'packaging/systemd/ticketnet-agent.service');
const IDLE_GOAL_MIB = 48;

const { values: opt } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    'command-every': { type: 'string', default: '1' },
    'telemetry-every': { type: 'string', default: '60' },
    'cut-every': { type: 'string', default: '600' },
    'limit-mib': { type: 'string', default: '64' },
    'idle-seconds': { type: 'string', default: '30' },
    'bulk-accounts': { type: 'string', default: '15000' },
    /** Which packaged agent soaks: the bundle's launcher (container, Linux box) or the executable. */
    variant: { type: 'string', default: 'launcher' },
    /** Comma-separated sections to leave out: package, idle, bulk, soak. */
    skip: { type: 'string', default: '' },
    /** Also write the figures as JSON to this file. */
    out: { type: 'string' },
  },
});
const num = (name: keyof typeof opt): number => {
  const value = Number(opt[name]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
};
const MINUTES = num('minutes');
const COMMAND_EVERY_MS = num('command-every') * 1000;
const TELEMETRY_EVERY_S = num('telemetry-every');
const CUT_EVERY_MS = num('cut-every') * 1000;
const LIMIT_BYTES = num('limit-mib') * 2 ** 20;
const IDLE_SECONDS = num('idle-seconds');
const BULK_ACCOUNTS = num('bulk-accounts');
const skip = new Set((opt.skip ?? '').split(',').filter(Boolean));
if (!['launcher', 'executable'].includes(opt.variant!)) throw new Error('--variant: launcher or executable');

const mib = (bytes: number | null | undefined) =>
  bytes === null || bytes === undefined ? '-' : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const say = (line: string) => console.log(line);
const elapsed = (since: number) => `${((Date.now() - since) / 60000).toFixed(1)} min`;

/** VmRSS and VmHWM of a live process, in bytes; undefined once it is gone. */
function rssOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => 1024 * Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

// ---- how the packaging starts the agent ---------------------------------------------------------

interface Variant {
  name: string;
  cmd: string;
  args: string[];
  env: Record<string, string>;
  /** Started as the packaging ships it (its idle RSS is held to the goal). */
  shipped: boolean;
}

/** The Environment= settings of the systemd unit (what the executable runs with as a service). */
function unitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(UNIT, 'utf8').split('\n')) {
    const m = /^Environment=(.*)$/.exec(line.trim());
    if (!m) continue;
    // Quoted words hold spaces ("NODE_OPTIONS=--a --b"); the others are split on spaces.
    for (const word of m[1]!.match(/"[^"]*"|\S+/g) ?? []) {
      const unquoted = word.replace(/^"(.*)"$/, '$1');
      const eq = unquoted.indexOf('=');
      env[unquoted.slice(0, eq)] = unquoted.slice(eq + 1);
    }
  }
  return env;
}

type VariantName = 'launcher' | 'executable' | 'bareBundle' | 'bareExecutable';

/**
 * How each variant starts, on its own copy of the binary it runs (node, or the executable) whose
 * page cache is dropped first. The binary's code pages count in RSS as the kernel maps them, and
 * it maps every cached page around a fault: the same agent shows about 10 MiB more RSS on a node
 * binary that other processes keep fully cached (a developer's machine) than on one only the agent
 * uses (a router container, a site box).
 */
function variantOf(name: VariantName, dir: string): Variant {
  mkdirSync(dir, { recursive: true });
  const node = () => coldCopy(process.execPath, join(dir, 'node'));
  switch (name) {
    case 'launcher':
      return {
        name: 'bundle, launcher (ticketnet-agent.sh)',
        cmd: LAUNCHER,
        args: [],
        env: { NODE: node() },
        shipped: true,
      };
    case 'executable':
      return {
        name: 'executable, systemd unit environment',
        cmd: coldCopy(EXECUTABLE, join(dir, 'ticketnet-agent')),
        args: [],
        env: unitEnvironment(),
        shipped: true,
      };
    case 'bareBundle':
      return {
        name: 'bundle, bare (node ticketnet-agent.cjs)',
        cmd: node(),
        args: [BUNDLE],
        env: {},
        shipped: false,
      };
    case 'bareExecutable':
      return {
        name: 'executable, bare',
        cmd: coldCopy(EXECUTABLE, join(dir, 'ticketnet-agent')),
        args: [],
        env: {},
        shipped: false,
      };
  }
}

/** Copies a binary, flushes it and drops its page cache (GNU dd's nocache: posix_fadvise DONTNEED). */
function coldCopy(from: string, to: string): string {
  copyFileSync(from, to);
  chmodSync(to, 0o755);
  const fd = openSync(to, 'r');
  fsyncSync(fd);
  closeSync(fd);
  const dropped = spawnSync('dd', [`if=${to}`, 'iflag=nocache', 'count=0'], { stdio: 'ignore' });
  if (dropped.status !== 0) say(`  (could not drop the page cache of ${to}: RSS counts a warm cache)`);
  return to;
}

// ---- a memory cgroup under our own, when the machine allows it ----------------------------------

interface Cgroup {
  kind: 'v1' | 'v2';
  dir: string;
  /**
   * Highest memory use the cgroup saw, in bytes. It counts the page cache its processes read in
   * (their own binary's pages among them), which fills up to the limit and is then reclaimed: a
   * peak at the limit is no failure. What must fit is the anonymous memory.
   */
  peak(): number | null;
  /** Anonymous memory charged to the cgroup now, in bytes. */
  anon(): number | null;
  oomKills(): number | null;
  remove(): void;
}

function readNumber(file: string): number | null {
  try {
    return Number(readFileSync(file, 'utf8').trim());
  } catch {
    return null;
  }
}

function statField(file: string, field: string): number | null {
  try {
    const m = new RegExp(`^${field} (\\d+)$`, 'm').exec(readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function createCgroup(limitBytes: number): { cgroup?: Cgroup; why?: string } {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const name = `ticketnet-soak-${process.pid}`;
  const v1 = lines
    .map((l) => /^\d+:([^:]*):(.*)$/.exec(l))
    .find((m) => m?.[1]?.split(',').includes('memory'));
  try {
    if (v1 && existsSync('/sys/fs/cgroup/memory')) {
      const dir = join('/sys/fs/cgroup/memory', v1[2]!, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limitBytes));
      // No swapping around the limit, where the kernel accounts swap.
      if (existsSync(join(dir, 'memory.memsw.limit_in_bytes')))
        try {
          writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), String(limitBytes));
        } catch {
          // swap accounting off: nothing to limit
        }
      return {
        cgroup: {
          kind: 'v1',
          dir,
          peak: () => readNumber(join(dir, 'memory.max_usage_in_bytes')),
          anon: () => statField(join(dir, 'memory.stat'), 'rss'),
          oomKills: () => {
            const m = /oom_kill (\d+)/.exec(readFileSync(join(dir, 'memory.oom_control'), 'utf8'));
            return m ? Number(m[1]) : null;
          },
          remove: () => rmdirSync(dir),
        },
      };
    }
    const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find(Boolean);
    if (v2 && existsSync('/sys/fs/cgroup/cgroup.controllers')) {
      const dir = join('/sys/fs/cgroup', v2[1]!, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'memory.max'), String(limitBytes));
      if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
      return {
        cgroup: {
          kind: 'v2',
          dir,
          peak: () => readNumber(join(dir, 'memory.peak')),
          anon: () => statField(join(dir, 'memory.stat'), 'anon'),
          oomKills: () => {
            const m = /oom_kill (\d+)/.exec(readFileSync(join(dir, 'memory.events'), 'utf8'));
            return m ? Number(m[1]) : null;
          },
          remove: () => rmdirSync(dir),
        },
      };
    }
    return { why: 'no memory cgroup controller found' };
  } catch (err) {
    return { why: (err as Error).message };
  }
}

// ---- the agent link's relay, whose connections can be cut ---------------------------------------

interface Relay {
  port: number;
  /** Destroys every connection going through (the agent sees its link drop). */
  cut(): number;
  close(): Promise<void>;
}

async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((agentSide) => {
    const controllerSide = connect(targetPort, '127.0.0.1');
    for (const [from, to] of [
      [agentSide, controllerSide],
      [controllerSide, agentSide],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => {
      const n = sockets.size / 2;
      for (const s of sockets) s.destroy();
      return n;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
  };
}

// ---- one agent process ---------------------------------------------------------------------------

/** A packaged agent whose log is counted as it comes (not kept: an hour of it is large). */
class AgentRun {
  readonly child: ChildProcess;
  readonly started = new Map<string, number>();
  readonly reports = new Map<string, string>();
  linkReady = 0;
  readonly tail: string[] = [];
  #partial = '';

  constructor(
    readonly variant: Variant,
    readonly stateDir: string,
    args: string[],
    env: Record<string, string>,
    cgroupProcs?: string,
  ) {
    const argv = [...variant.args, '--state-dir', stateDir, 'run', ...args];
    const fullEnv = { ...process.env, ...variant.env, ...env };
    // Inside the cgroup from its first instruction: a shell joins it, then becomes the agent.
    this.child = cgroupProcs
      ? spawn('/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', cgroupProcs, variant.cmd, ...argv], {
          env: fullEnv,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(variant.cmd, argv, { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d: Buffer) => this.#take(d));
    this.child.stderr!.on('data', (d: Buffer) => this.#take(d));
  }

  #take(chunk: Buffer): void {
    const lines = (this.#partial + chunk.toString()).split('\n');
    this.#partial = lines.pop()!;
    for (const line of lines) {
      this.tail.push(line);
      if (this.tail.length > 40) this.tail.shift();
      if (!line.startsWith('{')) continue;
      let rec: { msg?: string; id?: string; kind?: string };
      try {
        rec = JSON.parse(line) as typeof rec;
      } catch {
        continue;
      }
      if (rec.msg === 'link ready') this.linkReady++;
      else if (rec.msg === 'command started' && rec.id)
        this.started.set(rec.id, (this.started.get(rec.id) ?? 0) + 1);
      else if (rec.msg === 'report stored' && rec.id) this.reports.set(rec.id, rec.kind ?? '?');
    }
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async waitReady(timeoutMs = 60_000): Promise<void> {
    const t0 = Date.now();
    while (this.linkReady === 0) {
      if (!this.alive) throw new Error(`${this.variant.name} exited:\n${this.tail.join('\n')}`);
      if (Date.now() - t0 > timeoutMs)
        throw new Error(`${this.variant.name}: no link within ${timeoutMs} ms:\n${this.tail.join('\n')}`);
      await sleep(100);
    }
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((done) => this.child.once('exit', done));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

function agentArgs(sim: SimProcess, controllerUrl: string, code: string, relayPorts: [number, number]) {
  return [
    '--controller',
    controllerUrl,
    '--code',
    code,
    '--router-host',
    '127.0.0.1',
    '--router-port',
    String(sim.port),
    '--router-user',
    ROUTER_USER,
    '--radius-relay-host',
    '127.0.0.1',
    '--radius-relay-auth-port',
    String(relayPorts[0]),
    '--radius-relay-acct-port',
    String(relayPorts[1]),
  ];
}

// ---- the run ------------------------------------------------------------------------------------

interface Figures {
  idle?: { variant: string; shipped: boolean; rssBytes: number | null }[];
  bulk?: {
    variant: string;
    state: string;
    seconds: number;
    users: number;
    rssPeakBytes: number;
    cgroupAnonMaxBytes: number | null;
  }[];
  soak?: Record<string, unknown>;
}
const figures: Figures = {};
const agents: AgentRun[] = [];
// RADIUS relay ports per agent: several agents on one machine cannot all take 1812/1813.
let nextRelayPort = 20_000 + (process.pid % 20_000);
const relayPorts = (): [number, number] => [nextRelayPort++, nextRelayPort++];

async function idle(stack: Stack, sim: SimProcess): Promise<void> {
  const client = await stack.api.client();
  const runs: AgentRun[] = [];
  const names: VariantName[] = ['launcher', 'executable', 'bareBundle', 'bareExecutable'];
  for (const [i, name] of names.entries()) {
    const variant = variantOf(name, join(stack.dir, `bin-${i}`));
    const { enrolment } = await stack.api.allocate(client, variant.name);
    const run = new AgentRun(
      variant,
      join(stack.dir, `idle-${runs.length}`),
      agentArgs(sim, stack.controller!.url, enrolment.code, relayPorts()),
      { TICKETNET_ROUTER_PASSWORD: ROUTER_PASSWORD, TICKETNET_LOG_LEVEL: 'info' },
    );
    agents.push(run);
    runs.push(run);
  }
  for (const run of runs) await run.waitReady();
  await sleep(IDLE_SECONDS * 1000);
  figures.idle = runs.map((run) => ({
    variant: run.variant.name,
    shipped: run.variant.shipped,
    rssBytes: rssOf(run.child.pid!)?.rss ?? null,
  }));
  await Promise.all(runs.map((run) => run.stop()));
  say(`\nidle RSS after ${IDLE_SECONDS} s linked (goal: at most ${IDLE_GOAL_MIB} MiB as shipped)`);
  for (const i of figures.idle) {
    const verdict = !i.shipped
      ? ''
      : i.rssBytes !== null && i.rssBytes <= IDLE_GOAL_MIB * 2 ** 20
        ? '  PASS'
        : '  FAIL';
    say(`  ${mib(i.rssBytes).padStart(10)}  ${i.variant}${verdict}`);
  }
}

async function bulk(stack: Stack): Promise<void> {
  const sim = await stack.startSim({
    serial: '4C0FFEE0B01C',
    version: '7.19',
    identity: 'Bulk-Site',
    users: BULK_ACCOUNTS,
  });
  const client = await stack.api.client();
  figures.bulk = [];
  say(`\nbulk: hotspot.users.export of ${BULK_ACCOUNTS} accounts`);
  for (const [i, name] of (['launcher', 'bareBundle'] as VariantName[]).entries()) {
    const variant = variantOf(name, join(stack.dir, `bin-bulk-${i}`));
    const { allocation, enrolment } = await stack.api.allocate(client, `bulk ${name}`);
    // The shipped agent inside the memory limit, as in the soak; the bare one without.
    const { cgroup } = variant.shipped ? createCgroup(LIMIT_BYTES) : {};
    const agent = new AgentRun(
      variant,
      join(stack.dir, `bulk-${i}`),
      agentArgs(sim, stack.controller!.url, enrolment.code, relayPorts()),
      { TICKETNET_ROUTER_PASSWORD: ROUTER_PASSWORD, TICKETNET_LOG_LEVEL: 'info' },
      cgroup ? join(cgroup.dir, 'cgroup.procs') : undefined,
    );
    agents.push(agent);
    await agent.waitReady();
    await sleep(2000);
    let peak = 0;
    let anonPeak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(agent.child.pid!)?.rss ?? 0);
      anonPeak = Math.max(anonPeak, cgroup?.anon() ?? 0);
    }, 50);
    const t0 = Date.now();
    const command = await stack.api.enqueue(
      client,
      allocation.id,
      'hotspot.users.export',
      { include_profiles: true },
      600,
    );
    const done = await stack.api.waitForFinal(client, command, 600_000);
    const seconds = (Date.now() - t0) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssOf(agent.child.pid!)?.hwm ?? 0);
    const inCgroup = cgroup
      ? `; in a ${mib(LIMIT_BYTES)} cgroup: anonymous memory max ${mib(anonPeak)}, OOM kills ` +
        `${cgroup.oomKills() ?? '-'}, agent ${agent.alive ? 'alive' : 'dead'}`
      : '';
    const users = (done.output as { users?: unknown[] } | null)?.users?.length ?? 0;
    figures.bulk.push({
      variant: variant.name,
      state: done.state,
      seconds,
      users,
      rssPeakBytes: peak,
      cgroupAnonMaxBytes: cgroup ? anonPeak : null,
    });
    say(
      `  ${variant.name}: ${done.state} (${users} users) in ${seconds.toFixed(1)} s, RSS peak ${mib(peak)}` +
        (done.fault ? ` ${done.fault.code}: ${done.fault.message}` : '') +
        inCgroup,
    );
    await agent.stop();
    try {
      cgroup?.remove();
    } catch {
      // a process still inside: the directory stays; harmless
    }
  }
  await sim.proc.stop();
}

async function soak(stack: Stack, sim: SimProcess): Promise<void> {
  const client = await stack.api.client();
  const variant = variantOf(opt.variant as VariantName, join(stack.dir, 'bin-soak'));
  const { allocation, enrolment } = await stack.api.allocate(client, 'soak');
  const relay = await startRelay(stack.controller!.port);
  const { cgroup, why } = createCgroup(LIMIT_BYTES);
  say(
    `\nsoak: ${variant.name}, ${MINUTES} min; a command every ${COMMAND_EVERY_MS / 1000} s, telemetry every ` +
      `${TELEMETRY_EVERY_S} s, link cut every ${CUT_EVERY_MS / 1000} s; ` +
      (cgroup
        ? `memory cgroup (${cgroup.kind}) limited to ${mib(LIMIT_BYTES)}`
        : `no cgroup (${why}): RSS compared with ${mib(LIMIT_BYTES)}`),
  );
  const agent = new AgentRun(
    variant,
    join(stack.dir, 'soak'),
    [
      ...agentArgs(sim, `http://127.0.0.1:${relay.port}`, enrolment.code, relayPorts()),
      '--telemetry-interval',
      String(TELEMETRY_EVERY_S),
    ],
    { TICKETNET_ROUTER_PASSWORD: ROUTER_PASSWORD, TICKETNET_LOG_LEVEL: 'info' },
    cgroup ? join(cgroup.dir, 'cgroup.procs') : undefined,
  );
  agents.push(agent);
  const pid = agent.child.pid!;
  let exit: string | undefined;
  agent.child.once('exit', (code, signal) => (exit = `exited ${signal ?? code} after ${elapsed(t0)}`));
  const t0 = Date.now();
  await agent.waitReady();

  let rssMax = 0;
  let rssLast = 0;
  let anonMax = 0;
  let cuts = 0;
  const enqueued: string[] = [];
  let enqueueFailures = 0;
  const end = t0 + MINUTES * 60_000;
  let nextCommand = Date.now();
  let nextCut = t0 + CUT_EVERY_MS;
  let nextLine = t0 + 60_000;
  const pending = new Set<Promise<void>>();
  while (Date.now() < end && agent.alive) {
    const now = Date.now();
    const sample = rssOf(pid);
    if (sample) {
      rssLast = sample.rss;
      rssMax = Math.max(rssMax, sample.rss);
    }
    anonMax = Math.max(anonMax, cgroup?.anon() ?? 0);
    if (now >= nextCommand) {
      nextCommand += COMMAND_EVERY_MS;
      const p = stack.api
        .enqueue(client, allocation.id, 'router.ping', {}, 600)
        .then((c) => void enqueued.push(c.id))
        .catch(() => void enqueueFailures++)
        .finally(() => pending.delete(p));
      pending.add(p);
    }
    if (now >= nextCut) {
      nextCut += CUT_EVERY_MS;
      cuts++;
      relay.cut();
    }
    if (now >= nextLine) {
      nextLine += 60_000;
      say(
        `  ${elapsed(t0).padStart(8)}  RSS ${mib(rssLast)} (max ${mib(rssMax)})` +
          (cgroup ? `, cgroup anon ${mib(cgroup.anon())} (max ${mib(anonMax)})` : '') +
          `, commands ${enqueued.length}, started ${agent.started.size}, links ${agent.linkReady}, reports ${agent.reports.size}`,
      );
    }
    await sleep(Math.max(10, Math.min(nextCommand, nextCut, nextLine, now + 1000) - Date.now()));
  }
  await Promise.all(pending);
  const ranFor = Date.now() - t0;

  // Let the last commands finish and the outbox drain (the link may still be coming back from a cut).
  const db = new Database(stack.dbFile, { readonly: true, fileMustExist: true });
  const states = () =>
    db
      .prepare('select state, count(*) as n from agent_commands where allocation_id = ? group by state')
      .all(allocation.id) as { state: string; n: number }[];
  const outboxDir = join(agent.stateDir, 'outbox');
  const outboxLeft = () => readdirSync(outboxDir).filter((n) => n.endsWith('.json')).length;
  const settleUntil = Date.now() + 120_000;
  while (Date.now() < settleUntil && agent.alive) {
    const open = states().filter((s) => !['DONE', 'FAILED', 'EXPIRED'].includes(s.state));
    if (open.length === 0 && outboxLeft() === 0) break;
    await sleep(500);
  }
  const final = rssOf(pid);
  if (final) {
    rssLast = final.rss;
    rssMax = Math.max(rssMax, final.rss, final.hwm);
  }
  const byState = Object.fromEntries(states().map((s) => [s.state, s.n]));
  const received = new Set(
    (
      db.prepare('select id from agent_reports where allocation_id = ?').all(allocation.id) as {
        id: string;
      }[]
    ).map((r) => r.id),
  );
  db.close();
  const lostReports = [...agent.reports.keys()].filter((id) => !received.has(id)).length;
  const telemetry = [...agent.reports.values()].filter((k) => k === 'telemetry').length;
  const notDone = enqueued.length - (byState.DONE ?? 0);
  const twice = [...agent.started.values()].filter((n) => n > 1).length;
  const peak = cgroup?.peak() ?? null;
  const oomKills = cgroup?.oomKills() ?? null;
  const alive = agent.alive;
  const exitedEarly = exit;
  const outbox = outboxLeft();
  await agent.stop();
  await relay.close();
  try {
    cgroup?.remove();
  } catch {
    // a process still inside: the directory stays; harmless
  }

  // In a cgroup the kernel holds the limit (an excess is an OOM kill); without one, RSS is the measure.
  const within = alive && (cgroup ? (oomKills ?? 0) === 0 : rssMax <= LIMIT_BYTES);
  figures.soak = {
    variant: variant.name,
    minutes: ranFor / 60000,
    cgroup: cgroup
      ? { kind: cgroup.kind, limitBytes: LIMIT_BYTES, peakBytes: peak, anonMaxBytes: anonMax, oomKills }
      : null,
    rssMaxBytes: rssMax,
    rssFinalBytes: rssLast,
    agentExit: exitedEarly ?? null,
    cuts,
    reconnects: Math.max(0, agent.linkReady - 1),
    commands: { enqueued: enqueued.length, enqueueFailures, byState, notDone, runTwice: twice },
    reports: {
      stored: agent.reports.size,
      telemetry,
      received: agent.reports.size - lostReports,
      lost: lostReports,
    },
    outboxLeft: outbox,
    within64: within,
  };
  say(`\nsoak figures (${(ranFor / 60000).toFixed(1)} min, ${variant.name})`);
  say(`  RSS max ${mib(rssMax)}, final ${mib(rssLast)}`);
  if (cgroup)
    say(
      `  cgroup: anonymous memory max ${mib(anonMax)}; peak ${mib(peak)} with the page cache it read ` +
        `(reclaimed at the limit); OOM kills ${oomKills ?? '-'}`,
    );
  say(`  link cuts ${cuts}, reconnects ${Math.max(0, agent.linkReady - 1)}`);
  say(
    `  commands: ${enqueued.length} enqueued (${enqueueFailures} refused), ` +
      `${JSON.stringify(byState)}; lost ${notDone}, run twice ${twice}`,
  );
  say(
    `  reports: ${agent.reports.size} stored by the agent (${telemetry} telemetry), ` +
      `${agent.reports.size - lostReports} received, lost ${lostReports}; outbox left ${outbox}`,
  );
  say(
    `  ${mib(LIMIT_BYTES)} limit: ${within ? 'PASS' : 'FAIL'}` +
      (exitedEarly ? ` (agent ${exitedEarly})` : '') +
      (cgroup ? '' : ' (RSS sampled every second, no cgroup)'),
  );
}

async function main(): Promise<void> {
  if (!skip.has('package')) {
    const built = spawnSync(process.execPath, ['packaging/build-agent.js'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('packaging failed');
  }
  const stack = await Stack.create();
  try {
    const [, sim] = await Promise.all([
      stack.startController(),
      stack.startSim({ serial: '4C0FFEE0500A', version: '7.19', identity: 'Soak-Site' }),
    ]);
    if (!skip.has('idle')) await idle(stack, sim);
    if (!skip.has('bulk')) await bulk(stack);
    if (!skip.has('soak')) await soak(stack, sim);
  } catch (err) {
    say(stack.dump());
    for (const a of agents) say(`--- ${a.variant.name} ---\n${a.tail.join('\n')}`);
    throw err;
  } finally {
    await Promise.all(agents.map((a) => a.stop()));
    await stack.shutdown();
    if (opt.out) writeFileSync(opt.out, JSON.stringify(figures, null, 2));
  }
}

await main();
