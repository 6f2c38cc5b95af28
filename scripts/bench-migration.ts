// `npm run bench:migration`: a router of 15,000 local accounts migrated to RADIUS (removal
// included), then returned to local accounts, against the RouterOS simulator. The controller (on a
// temporary SQLite file, or PostgreSQL with --pg), the simulator and the real agent runtime run in
// this process and talk over real sockets; the agent reaches the controller through a loopback TCP
// relay that counts the bytes of the agent link (and, with --link-rtt, delays them like a
// satellite hop).
//
// Printed per step: wall time, agent commands, command payload bytes (the JSON of `params` plus
// `output` as stored in agent_commands, before the link's envelope and websocket framing) and the
// bytes that crossed the agent link both ways in that time (framing, acks and heartbeats included).
// Step boundaries: the run's RADIUS_MIGRATION notifications and the first command of each step
// (agent_commands.created_at); commands are given to the step whose time window holds them.
//
// With --compare, the same migration and return run with the link's compression off on both ends
// (Infinity: every frame plain, the behaviour before compression) and on (the default threshold),
// each on a fresh database, and each step is printed side by side with the ratios on/off. With
// --rounds N the pair runs N times, the order swapped every round (off/on, on/off, …) so that the
// machine's drift falls on both modes alike; the load average is printed beside every run. With
// --parallel (SQLite) the two runs of a round go at once, each in a child process of this script,
// so that both meet the same load at the same time: on a machine shared with other work, the wall
// ratio of runs taken one after the other moves with that work's ups and downs.
//
//   node --import tsx scripts/bench-migration.ts [--accounts 15000] [--pg postgres://…]
//        [--link-rtt 600] [--link-kbps 2000] [--router-delay 0]
//        [--compare [--rounds 2] [--parallel]] [--compression off]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import pg from 'pg';
import { startLoopbackAgent } from '../test/support/loopback-agent.js';
import { loadConfig } from '../controller/config.js';
import { createController, type Controller } from '../controller/controller.js';
import { systemClock } from '../controller/core/clock.js';
import { openDatabase, type DatabaseHandle } from '../controller/db/database.js';
import { RouterSim } from '../test/routeros-sim/router-sim.js';
import { pgReachable } from './bench-support.js';

const { values: opt } = parseArgs({
  options: {
    accounts: { type: 'string', default: '15000' },
    /** Also run on PostgreSQL (a fresh schema, dropped afterwards). */
    pg: { type: 'string' },
    /** Round trip added to the agent link (half each way), e.g. 600 for a geostationary satellite. */
    'link-rtt': { type: 'string', default: '0' },
    /** The simulator's `delayMs` fault: every router API reply waits this long (agent ↔ router). */
    'router-delay': { type: 'string', default: '0' },
    /** Bandwidth of the agent link each way, in kbit/s (0: unlimited), e.g. 2000 for a small VSAT. */
    'link-kbps': { type: 'string', default: '0' },
    /** Runs compression off and on, side by side. */
    compare: { type: 'boolean', default: false },
    /** With --compare: pairs of runs, the order swapped every round. */
    rounds: { type: 'string', default: '1' },
    /** With --compare: the two runs of a round at once, in two child processes (SQLite). */
    parallel: { type: 'boolean', default: false },
    /** Without --compare: the link's compression in the one run (off: to profile each mode alone). */
    compression: { type: 'string', default: 'on' },
    /** The one run's figures as a line of JSON, nothing else (a --parallel child). */
    figures: { type: 'boolean', default: false },
  },
});
const ACCOUNTS = Number(opt.accounts);
const LINK_RTT = Number(opt['link-rtt']);
const LINK_KBPS = Number(opt['link-kbps']);
const ROUTER_DELAY = Number(opt['router-delay']);
const ROUNDS = Number(opt.rounds);
const SIM_PASSWORD = 'bench-pass';
const OFF = Number.POSITIVE_INFINITY;
if (!['on', 'off'].includes(opt.compression)) throw new Error('--compression is on or off');
/** The one run's threshold without --compare (undefined: both ends' default). */
const SINGLE = opt.compression === 'off' ? OFF : undefined;

// ---- the agent link's relay: counts bytes, optionally delays them ------------------------------

interface Wire {
  port: number;
  /** Bytes per direction, with the time each chunk went through. */
  chunks: { at: number; up: boolean; bytes: number }[];
  close(): Promise<void>;
}

async function linkRelay(targetPort: number, oneWayMs: number, kbps = 0): Promise<Wire> {
  const chunks: Wire['chunks'] = [];
  const sockets = new Set<Socket>();
  const pipe = (from: Socket, to: Socket, up: boolean) => {
    // With a bandwidth, each chunk leaves once the previous ones have (bytes × 8 / kbit/s ms), then
    // takes the one-way delay; a queue drained in order keeps the bytes in order.
    const queue: { due: number; chunk: Buffer }[] = [];
    let free = 0;
    const drain = () => {
      while (queue.length > 0 && queue[0]!.due <= performance.now()) {
        const { chunk } = queue.shift()!;
        if (!to.destroyed) to.write(chunk);
      }
      if (queue.length > 0) setTimeout(drain, queue[0]!.due - performance.now());
    };
    from.on('data', (chunk: Buffer) => {
      chunks.push({ at: Date.now(), up, bytes: chunk.length });
      if (kbps > 0) {
        const now = performance.now();
        free = Math.max(now, free) + (chunk.length * 8) / kbps;
        queue.push({ due: free + oneWayMs, chunk });
        if (queue.length === 1) setTimeout(drain, free + oneWayMs - now);
        return;
      }
      // Same delay for every chunk: timers fire in the order they were set, so bytes stay in order.
      if (oneWayMs > 0) setTimeout(() => to.destroyed || to.write(chunk), oneWayMs);
      else to.write(chunk);
    });
    from.on('end', () => {
      // after the bytes still on their way
      const wait = kbps > 0 ? Math.max(free + oneWayMs - performance.now(), 0) + 1 : oneWayMs;
      if (wait > 0) setTimeout(() => to.end(), wait);
      else to.end();
    });
    from.on('error', () => to.destroy());
    from.on('close', () => to.destroy());
  };
  const server: Server = createServer((agentSide) => {
    const controllerSide = connect(targetPort, '127.0.0.1');
    sockets.add(agentSide).add(controllerSide);
    pipe(agentSide, controllerSide, true);
    pipe(controllerSide, agentSide, false);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    chunks,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- one run -----------------------------------------------------------------------------------

interface CommandRow {
  name: string;
  params: string;
  output: string | null;
  created_at: string;
  finished_at: string | null;
}

interface StepFigures {
  step: string;
  ms: number;
  commands: number;
  payload: number;
  wire: number;
}

interface RunFigures {
  db: string;
  migration: { ms: number; status: string; importes: number; retires: number; steps: StepFigures[] };
  retour: { ms: number; status: string; restored: number; steps: StepFigures[] };
  backupBytes: number;
  /**
   * CPU time of this process (controller, agent, simulator and relay together) over the migration
   * and the return: what compression costs, less sensitive than wall time to the other work here.
   */
  cpuMs: number;
}

const bytes = (text: string | null) => (text === null ? 0 : Buffer.byteLength(text, 'utf8'));

/**
 * Cuts [start, end] at `bounds` (one per step, the step's start) and sums what each window holds.
 * A command belongs to the window its creation falls in.
 */
function perStep(
  names: string[],
  starts: number[],
  end: number,
  rows: CommandRow[],
  wire: Wire['chunks'],
): StepFigures[] {
  return names.map((step, i) => {
    const from = starts[i]!;
    const to = i + 1 < starts.length ? starts[i + 1]! : end;
    const inWindow = rows.filter((r) => {
      const t = Date.parse(r.created_at);
      return t >= from && (t < to || (i === names.length - 1 && t <= to));
    });
    return {
      step,
      ms: to - from,
      commands: inWindow.length,
      payload: inWindow.reduce((sum, r) => sum + bytes(r.params) + bytes(r.output), 0),
      wire: wire.filter((c) => c.at >= from && c.at < to).reduce((sum, c) => sum + c.bytes, 0),
    };
  });
}

/** One migration and return; `compressFrom` is both ends' threshold (undefined: their default). */
async function run(
  dbName: string,
  database: DatabaseHandle,
  dataDir: string,
  compressFrom?: number,
): Promise<RunFigures> {
  const config = loadConfig(
    {},
    {
      dataDir,
      jwtSecret: 'bench-secret-bench-secret-bench-secret-00',
      apiQuota: 'off',
      authFailureQuota: 'off',
      moneyQuota: 'off',
      logLevel: 'silent',
      scheduler: false,
      clock: 'system',
      host: '127.0.0.1',
      port: 0,
      radiusEnabled: false,
    },
  );
  const controller: Controller = await createController({
    config,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    database,
    ...(compressFrom !== undefined ? { hub: { compressFrom } } : {}),
  });
  const cleanups: (() => Promise<unknown>)[] = [() => controller.close()];
  try {
    const { port } = await controller.listen();
    const s = controller.services;
    const client = await s.accounts.register({
      email: `bench-${dbName}@example.com`,
      password: 'bench-pass-1',
      name: 'Bench',
      kind: 'client',
    });
    const clientId = client.account.id;
    await s.licences.grant(clientId, 'RADIUS_ANNUAL', null);

    // Step notifications, timed here as they are written.
    const noticeAt = new Map<string, number>();
    const notify = s.notifications.notify.bind(s.notifications);
    s.notifications.notify = async (input, db) => {
      const etape = (input.data as { etape?: string } | undefined)?.etape;
      if (input.type === 'RADIUS_MIGRATION' && etape) noticeAt.set(etape, Date.now());
      return notify(input, db);
    };

    const sim = new RouterSim({
      serial: '4C0FFEE0BE01',
      version: '7.19',
      identity: 'Bench-Site',
      password: SIM_PASSWORD,
      seed: { hotspotUsers: ACCOUNTS },
    });
    await sim.start();
    cleanups.push(() => sim.stop());
    const wire = await linkRelay(port, LINK_RTT / 2, LINK_KBPS);
    cleanups.push(() => wire.close());

    const res = await fetch(`http://127.0.0.1:${port}/api/v1/clients/allocations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const created = (await res.json()) as {
      data: { allocation: { id: string }; enrolment: { code: string } };
    };
    const allocationId = created.data.allocation.id;
    const stateDir = mkdtempSync(join(tmpdir(), 'tn-bench-migration-agent-'));
    cleanups.push(async () => rmSync(stateDir, { recursive: true, force: true }));
    const agent = await startLoopbackAgent({
      stateDir,
      controllerUrl: `http://127.0.0.1:${wire.port}`,
      enrolCode: created.data.enrolment.code,
      router: { port: sim.port, password: SIM_PASSWORD, timeoutMs: 30_000 },
      ...(compressFrom !== undefined ? { compressFrom } : {}),
    });
    cleanups.splice(1, 0, () => agent.stop());
    for (const until = Date.now() + 30_000; ;) {
      const a = await s.allocations.get(clientId, allocationId);
      if (a.link_state === 'CONNECTED' && a.router.serial !== null) break;
      if (Date.now() > until) throw new Error('the agent did not connect');
      await new Promise((r) => setTimeout(r, 50));
    }
    if (ROUTER_DELAY > 0) sim.faults.set({ delayMs: ROUTER_DELAY });

    const commands = async (since: number): Promise<CommandRow[]> =>
      (await database.db
        .selectFrom('agent_commands')
        .select(['name', 'params', 'output', 'created_at', 'finished_at'])
        .where('allocation_id', '=', allocationId)
        .where('created_at', '>=', new Date(since).toISOString())
        .orderBy('created_at')
        .execute()) as CommandRow[];
    const firstAfter = (rows: CommandRow[], name: string, after: number): number => {
      const row = rows.find((r) => r.name === name && Date.parse(r.created_at) >= after);
      if (!row) throw new Error(`no ${name} command after ${new Date(after).toISOString()}`);
      return Date.parse(row.created_at);
    };

    // ---- the migration
    const cpu0 = process.cpuUsage();
    const m0 = Date.now();
    const migrated = await s.migration.migrate(allocationId, true);
    const m1 = Date.now();
    const mRows = await commands(m0);
    const at = (etape: string) => {
      const t = noticeAt.get(etape);
      if (t === undefined) throw new Error(`no ${etape} notification`);
      return t;
    };
    const backupStart = firstAfter(mRows, 'backup.save', m0);
    // The removal opens with the router's count.
    const removalStart = firstAfter(mRows, 'hotspot.users.count', at('IMPORT'));
    const mSteps = perStep(
      ['INVENTAIRE', 'SAUVEGARDE', 'IMPORT', 'CONFIG', 'RETRAIT_LOCAL', 'ARMEMENT'],
      [m0, backupStart, at('SAUVEGARDE'), at('IMPORT'), removalStart, at('RETRAIT_LOCAL')],
      m1,
      mRows,
      wire.chunks,
    );
    const left = sim.state.table('/ip/hotspot/user').list().length;
    if (migrated.retires !== ACCOUNTS || left !== 1) {
      throw new Error(`migration incomplete: ${migrated.retires} removed, ${left} entries left`);
    }
    const backupBytes = migrated.etapes.find((e) => e.etape === 'SAUVEGARDE')?.octets ?? 0;

    // ---- the return
    const r0 = Date.now();
    const returned = await s.migration.returnToLocal(allocationId, true);
    const r1 = Date.now();
    const cpu = process.cpuUsage(cpu0);
    const rRows = await commands(r0);
    const profiles = firstAfter(rRows, 'hotspot.profiles.restore', r0);
    const users = firstAfter(rRows, 'hotspot.users.restore', profiles);
    const verify = firstAfter(rRows, 'hotspot.users.names', users);
    const cut = firstAfter(rRows, 'router.script.apply', verify);
    const rSteps = perStep(
      ['LECTURE_SAUVEGARDE', 'PROFILS', 'COMPTES', 'VERIFICATION', 'RADIUS_COUPE'],
      [r0, profiles, users, verify, cut],
      r1,
      rRows,
      wire.chunks,
    );
    const back = sim.state.table('/ip/hotspot/user').list().length;
    if (returned.comptes_restaures !== ACCOUNTS || back !== ACCOUNTS + 1) {
      throw new Error(
        `return incomplete: ${returned.comptes_restaures} restored, ${back} entries on the router`,
      );
    }

    return {
      db: dbName,
      migration: {
        ms: m1 - m0,
        status: migrated.statut,
        importes: migrated.importes,
        retires: migrated.retires,
        steps: mSteps,
      },
      retour: { ms: r1 - r0, status: returned.statut, restored: returned.comptes_restaures, steps: rSteps },
      backupBytes,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  } finally {
    for (const fn of cleanups) await fn().catch(() => undefined);
  }
}

// ---- the report --------------------------------------------------------------------------------

const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function table(title: string, total: number, steps: StepFigures[]): string {
  const lines = [
    title,
    `  ${'step'.padEnd(20)}${'wall'.padStart(10)}${'commands'.padStart(10)}${'payload'.padStart(14)}${'link bytes'.padStart(14)}`,
  ];
  for (const s of steps) {
    lines.push(
      `  ${s.step.padEnd(20)}${sec(s.ms).padStart(10)}${String(s.commands).padStart(10)}${kb(s.payload).padStart(14)}${kb(s.wire).padStart(14)}`,
    );
  }
  const sum = (k: 'commands' | 'payload' | 'wire') => steps.reduce((a, s) => a + s[k], 0);
  lines.push(
    `  ${'total'.padEnd(20)}${sec(total).padStart(10)}${String(sum('commands')).padStart(10)}${kb(sum('payload')).padStart(14)}${kb(sum('wire')).padStart(14)}`,
  );
  return lines.join('\n');
}

function report(r: RunFigures): string {
  return [
    `database: ${r.db}`,
    table(
      `migration (retirer_local true): ${r.migration.status}, ${r.migration.importes} imported, ${r.migration.retires} removed, backup file ${kb(r.backupBytes)}`,
      r.migration.ms,
      r.migration.steps,
    ),
    table(
      `return (couper_radius true): ${r.retour.status}, ${r.retour.restored} accounts restored`,
      r.retour.ms,
      r.retour.steps,
    ),
    `compression ${opt.compression}; CPU of the migration and the return ${sec(r.cpuMs)}; ${load()}`,
  ].join('\n');
}

const ratio = (on: number, off: number) => (off > 0 ? `${(on / off).toFixed(3)}x` : '-');

function compareTable(title: string, off: StepFigures[], on: StepFigures[], offMs: number, onMs: number) {
  const head =
    `  ${'step'.padEnd(20)}${'wall off'.padStart(10)}${'wall on'.padStart(10)}${'on/off'.padStart(9)}` +
    `${'bytes off'.padStart(13)}${'bytes on'.padStart(13)}${'on/off'.padStart(9)}`;
  const line = (step: string, wOff: number, wOn: number, bOff: number, bOn: number) =>
    `  ${step.padEnd(20)}${sec(wOff).padStart(10)}${sec(wOn).padStart(10)}${ratio(wOn, wOff).padStart(9)}` +
    `${kb(bOff).padStart(13)}${kb(bOn).padStart(13)}${ratio(bOn, bOff).padStart(9)}`;
  const lines = [title, head];
  off.forEach((s, i) => lines.push(line(s.step, s.ms, on[i]!.ms, s.wire, on[i]!.wire)));
  const wire = (steps: StepFigures[]) => steps.reduce((a, s) => a + s.wire, 0);
  lines.push(line('total', offMs, onMs, wire(off), wire(on)));
  return lines.join('\n');
}

function compareReport(off: RunFigures, on: RunFigures): string {
  const wire = (r: RunFigures) => [...r.migration.steps, ...r.retour.steps].reduce((a, s) => a + s.wire, 0);
  const wall = (r: RunFigures) => r.migration.ms + r.retour.ms;
  return [
    compareTable('migration', off.migration.steps, on.migration.steps, off.migration.ms, on.migration.ms),
    compareTable('return', off.retour.steps, on.retour.steps, off.retour.ms, on.retour.ms),
    `  both ways: wall ${sec(wall(off))} off, ${sec(wall(on))} on (${ratio(wall(on), wall(off))}); ` +
      `link bytes ${kb(wire(off))} off, ${kb(wire(on))} on (${ratio(wire(on), wire(off))}); ` +
      `CPU ${sec(off.cpuMs)} off, ${sec(on.cpuMs)} on (${ratio(on.cpuMs, off.cpuMs)})`,
  ].join('\n');
}

const FIGURES = 'FIGURES ';

/** One run in a child process of this script (--parallel): its figures, read from its output. */
function runChild(mode: 'off' | 'on'): Promise<RunFigures> {
  const args = [
    '--import',
    'tsx',
    fileURLToPath(import.meta.url),
    ...['--accounts', String(ACCOUNTS), '--link-rtt', String(LINK_RTT), '--link-kbps', String(LINK_KBPS)],
    ...['--router-delay', String(ROUTER_DELAY), '--compression', mode, '--figures'],
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(FIGURES));
      if (code !== 0 || line === undefined)
        reject(new Error(`the run with compression ${mode} failed (${code})`));
      else resolve(JSON.parse(line.slice(FIGURES.length)) as RunFigures);
    });
  });
}

/** With --compare: rounds of off and on, each on a fresh database from `open`. */
async function compare(dbName: string, open: (tag: string) => Promise<DatabaseHandle>): Promise<void> {
  const totals: { off: RunFigures[]; on: RunFigures[] } = { off: [], on: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    const figures: Partial<Record<'off' | 'on', RunFigures>> = {};
    if (opt.parallel && dbName === 'sqlite') {
      const before = load();
      // started in the round's order, a moment apart
      const [first, second] = await Promise.all(order.map((mode) => runChild(mode)));
      figures[order[0]] = first;
      figures[order[1]] = second;
      console.log(`  round ${round}, both at once: ${before} before, ${load()} after`);
    } else {
      for (const mode of order) {
        const before = load();
        const runDir = mkdtempSync(join(dir, `${mode}-`));
        figures[mode] = await run(
          dbName,
          await open(`${mode}${round}`),
          runDir,
          mode === 'off' ? OFF : undefined,
        );
        console.log(`  round ${round}, compression ${mode}: ${before} before, ${load()} after`);
      }
    }
    totals.off.push(figures.off!);
    totals.on.push(figures.on!);
    console.log(`database: ${dbName}, round ${round} (${order.join(' then ')})`);
    console.log(compareReport(figures.off!, figures.on!));
    console.log('');
  }
  if (ROUNDS > 1) {
    const wall = (r: RunFigures) => r.migration.ms + r.retour.ms;
    const wire = (r: RunFigures) => [...r.migration.steps, ...r.retour.steps].reduce((a, s) => a + s.wire, 0);
    const walls = totals.on.map((on, i) => wall(on) / wall(totals.off[i]!));
    const wires = totals.on.map((on, i) => wire(on) / wire(totals.off[i]!));
    const cpus = totals.on.map((on, i) => on.cpuMs / totals.off[i]!.cpuMs);
    console.log(
      `database: ${dbName}, ${ROUNDS} rounds: wall on/off ${walls.map((w) => `${w.toFixed(3)}x`).join(', ')}; ` +
        `link bytes on/off ${wires.map((w) => `${w.toFixed(3)}x`).join(', ')}; ` +
        `CPU on/off ${cpus.map((c) => `${c.toFixed(3)}x`).join(', ')}`,
    );
  }
}

/** The report: one run, or --compare, on SQLite then on PostgreSQL with --pg. */
async function reportAll(): Promise<void> {
  const started = Date.now();
  console.log(
    [
      `bench:migration — ${ACCOUNTS.toLocaleString('en')} local hotspot accounts, RouterOS 7.19 simulator,`,
      `real agent runtime and controller in one process over loopback sockets` +
        (LINK_RTT > 0 ? `, agent link RTT ${LINK_RTT} ms` : '') +
        (LINK_KBPS > 0 ? `, agent link ${LINK_KBPS} kbit/s each way` : '') +
        (ROUTER_DELAY > 0 ? `, router replies delayed ${ROUTER_DELAY} ms` : '') +
        '.',
      `payload = command payloads (JSON of params + output in agent_commands), before the link's`,
      `envelope and websocket framing; link bytes = what crossed the agent link both ways in the`,
      `step's time window (envelope, framing, acks and heartbeats included).`,
      ...(opt.compare
        ? [
            `--compare: compression off (Infinity on both ends, every frame plain) beside on (the`,
            `default threshold), ${ROUNDS} round(s), the order swapped every round; ratios are on/off.`,
            ...(opt.parallel
              ? ['--parallel: the two runs of a round at once, in two processes (SQLite).']
              : []),
          ]
        : []),
      '',
    ].join('\n'),
  );
  if (opt.compare) {
    await compare('sqlite', (tag) => openDatabase(`sqlite:${join(dir, `bench-${tag}.db`)}`));
  } else {
    console.log(
      report(await run('sqlite', await openDatabase(`sqlite:${join(dir, 'bench.db')}`), dir, SINGLE)),
    );
  }
  if (opt.pg) {
    if (!(await pgReachable(opt.pg))) {
      console.log(`\npostgres: ${opt.pg} not reachable, skipped`);
    } else {
      const url = opt.pg;
      const schemas: string[] = [];
      const fresh = () => {
        const schema = `bench_${randomBytes(4).toString('hex')}`;
        schemas.push(schema);
        return openDatabase(url, { schema });
      };
      try {
        console.log('');
        if (opt.compare) await compare('postgres', fresh);
        else console.log(report(await run('postgres', await fresh(), dir, SINGLE)));
      } finally {
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        for (const schema of schemas) await admin.query(`drop schema if exists ${schema} cascade`);
        await admin.end();
      }
    }
  }
  console.log(`\n(whole run ${sec(Date.now() - started)})`);
}

const dir = mkdtempSync(join(tmpdir(), 'tn-bench-migration-'));
try {
  if (opt.figures) {
    const figures = await run('sqlite', await openDatabase(`sqlite:${join(dir, 'bench.db')}`), dir, SINGLE);
    console.log(FIGURES + JSON.stringify(figures));
  } else {
    await reportAll();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
