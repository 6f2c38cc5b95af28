// `npm run bench:qoe`: network-quality ingestion for --routers enrolled routers (default 10,000) on
// SQLite and PostgreSQL, beside a bare multi-row INSERT of the same points on the same database in
// the same run. For each database:
//   1. agent link: every router's agent linked (sealed frames, scripts/bench-qoe-link.ts), points
//      sent as `telemetry` reports `{qoe}`; at saturation (a closed loop of --concurrency points in
//      flight) the points per second, then paced at the goal rate (routers every 15 s: 667/s) the
//      p50/p99 per point, report sent → report_ack;
//   1a. agent link, backlog: each agent sends --backlog points in one batch frame, as an agent
//      drains its outbox after an outage (its window a frame), acknowledged in one report_ack: the
//      points per second at saturation, reported apart from the one-point-a-frame figure;
//   1b. pings over the same links (ping → pong, nothing stored): the link's own cost per message;
//   2. HTTP: POST /qoe/telemetry with each router's bridge token, the same two figures;
//   2b. the same POST without its token (refused before any read or write): what the HTTP stack
//      and the generator's client allow, beside which the HTTP figure is read;
//   2c. the ingestion alone: the service the route calls, called in this process with the same
//      tokens and points (no HTTP, no link), the same two figures;
//   3. bare: as many points as the link's saturation run took, in INSERTs of 500 rows into a table
//      shaped like qoe_points;
// and once: the bytes per day one agent sends at the default interval (60 s).
// Each router's points are 15 s apart with growing counters, so each one counts usage and reads the
// alert bound, as in the field. The links and the HTTP client run in a process of their own
// (scripts/bench-qoe-load.ts), the controller in this one; the two share the machine (and
// PostgreSQL), so the load average is printed with the figures, and each process's CPU per point.
//   node --import tsx scripts/bench-qoe.ts [--routers 10000] [--seconds 10] [--concurrency 512]
//     [--backlog 50] [--paths link,http,direct] [--db sqlite,postgres] [--pg URL]
import { fork } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../controller/config.js';
import { createController, type Controller } from '../controller/controller.js';
import { type DatabaseHandle } from '../controller/db/database.js';
import type { AllocationsTable } from '../controller/modules/allocations/tables.js';
import type { NasTable } from '../controller/modules/nas/tables.js';
import type { QoeBridgeTokensTable } from '../controller/modules/qoe/tables.js';
import {
  failures,
  pace,
  point,
  saturate,
  type Path,
  type Router,
  type Saturated,
  type Send,
  type Start,
} from './bench-qoe-load.js';
import { childReply, load, ms, pct, onEachDatabase } from './bench-support.js';

const { values: opt } = parseArgs({
  options: {
    routers: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '512' },
    backlog: { type: 'string', default: '50' },
    paths: { type: 'string', default: 'link,http,direct' },
    db: { type: 'string', default: 'sqlite,postgres' },
    pg: { type: 'string' },
  },
});
const ROUTERS = Number(opt.routers);
const SECONDS = Number(opt.seconds);
const CONCURRENCY = Number(opt.concurrency);
// Points per frame of an agent sending its outbox's backlog (the agent's window, 50 by default).
const BACKLOG = Number(opt.backlog);
// `--paths http,direct` leaves the agents unlinked (a quicker run while working on the ingestion alone).
const PATHS = new Set(opt.paths.split(','));
const DATABASES = new Set(opt.db.split(','));
const GOAL_RATE = ROUTERS / 15;
const PG_URL = opt.pg ?? process.env.TICKETNET_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  const pub = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { publicKey: pub.toString('base64'), secretKey: Buffer.concat([seed, pub]).toString('base64') };
}

/** The client, its allocations with enrolled agents, their NAS and bridge tokens, written straight in. */
async function seed(c: Controller): Promise<Router[]> {
  const client = await c.services.accounts.create({
    email: 'bench-qoe@example.com',
    password: 'bench-passw0rd',
    name: 'Bench QoE',
    kind: 'client',
  });
  const now = new Date().toISOString();
  const routers: Router[] = [];
  const allocations: AllocationsTable[] = [];
  const nas: NasTable[] = [];
  const tokens: QoeBridgeTokensTable[] = [];
  for (let i = 0; i < ROUTERS; i++) {
    const keys = keyPair();
    const r: Router = {
      allocationId: randomUUID(),
      nasId: randomUUID(),
      token: `qbt_${randomBytes(32).toString('base64url')}`,
      agentId: randomUUID(),
      secretKey: keys.secretKey,
      n: 0,
    };
    routers.push(r);
    const serial = `B${i.toString(16).padStart(7, '0').toUpperCase()}`;
    allocations.push({
      id: r.allocationId,
      client_id: client.id,
      label: `bench-${i}`,
      created_at: now,
      enrol_code_hash: null,
      enrol_code_expires_at: null,
      enrol_code_used_at: now,
      agent_id: r.agentId,
      agent_public_key: keys.publicKey,
      enrolled_at: now,
      revoked_at: null,
      router_serial: serial,
      router_identity: null,
      router_model: null,
      routeros_version: '7.19',
      architecture: null,
      board_name: null,
      free_hdd_bytes: null,
      total_hdd_bytes: null,
      facts_updated_at: null,
      radius_relay_address: null,
      radius_relay_auth_port: null,
      radius_relay_acct_port: null,
    });
    nas.push({
      id: r.nasId,
      client_id: client.id,
      allocation_id: r.allocationId,
      nasname: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      shortname: `bench-${i}`,
      secret: randomBytes(12).toString('hex'),
      role: i === 0 ? ('PRIMARY' as const) : ('MEMBER' as const),
      status: 'ACTIVE' as const,
      apply_mode: 'app_apply' as const,
      router_serial: serial,
      model: null,
      created_at: now,
      updated_at: now,
      activated_at: now,
      verified_at: now,
      deleted_at: null,
    });
    tokens.push({
      nas_id: r.nasId,
      client_id: client.id,
      allocation_id: r.allocationId,
      token_hash: createHash('sha256').update(r.token).digest('hex'),
      issued_at: now,
    });
  }
  await c.database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < ROUTERS; i += 500) {
      await trx
        .insertInto('allocations')
        .values(allocations.slice(i, i + 500))
        .execute();
      await trx
        .insertInto('nas')
        .values(nas.slice(i, i + 500))
        .execute();
      await trx
        .insertInto('qoe_bridge_tokens')
        .values(tokens.slice(i, i + 500))
        .execute();
    }
  });
  return routers;
}

/** Microseconds of this process's CPU (user and system) per item since `c0`. */
const cpuPer = (c0: NodeJS.CpuUsage, count: number): number => {
  const u = process.cpuUsage(c0);
  return (u.user + u.system) / Math.max(1, count);
};

/** Multi-row INSERTs of 500 of `count` points into a table shaped like qoe_points; rows per second. */
async function bareInsert(
  c: Controller,
  routers: Router[],
  count: number,
  keyed = false,
): Promise<{ rate: number; cpu: number }> {
  const db = c.database.db;
  const table = keyed ? 'bench_keyed_points' : 'bench_points';
  await sql`create table ${sql.table(table)} as select * from qoe_points where 1 = 0`.execute(db);
  if (keyed) {
    await sql`create unique index bench_keyed_id on ${sql.table(table)} (id)`.execute(db);
    await sql`create unique index bench_keyed_nas on ${sql.table(table)} (nas_id, observed_at)`.execute(db);
  }
  const clientId = (await db.selectFrom('nas').select('client_id').executeTakeFirstOrThrow()).client_id;
  const rows = Array.from({ length: count }, (_, i) => {
    const r = routers[i % routers.length]!;
    const p = point({ ...r, n: 100_000 + Math.floor(i / routers.length) });
    return {
      id: randomUUID(),
      client_id: clientId,
      nas_id: r.nasId,
      allocation_id: r.allocationId,
      received_at: new Date().toISOString(),
      ...p,
      top_consumers: JSON.stringify(p.top_consumers),
    };
  });
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto(table as 'qoe_points')
      .values(rows.slice(i, i + 500))
      .execute();
  return { rate: count / (ms(t0) / 1000), cpu: cpuPer(c0, count) };
}

interface Row {
  db: string;
  directRate: number;
  directP50: number;
  directP99: number;
  directBatch: number;
  agentRate: number;
  agentP50: number;
  agentP99: number;
  httpRate: number;
  httpP50: number;
  httpP99: number;
  /** Requests per second of the same route refused before storage (no token). */
  httpFloor: number;
  /** Pings per second over the same links (ping → pong, nothing stored). */
  linkFloor: number;
  /** Mean points per batch at saturation. */
  agentBatch: number;
  httpBatch: number;
  bareRate: number;
  /** The same rows into a table with qoe_points' two keys. */
  keyedRate: number;
  /** µs of this process's CPU per point at saturation: link, backlog, HTTP, ingestion, bare INSERT. */
  cpu: number[];
  /** µs of the generator process's CPU per point at saturation: link, backlog, HTTP. */
  loadCpu: number[];
  /** Points per second and per batch of agents sending a backlog of BACKLOG points a frame. */
  backlogRate: number;
  backlogBatch: number;
}

/** The generator process (bench-qoe-load.ts) of one database's run, asked over IPC. */
async function generator(start: Start) {
  const child = fork(join(import.meta.dirname, 'bench-qoe-load.ts'), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await childReply(child, 'ready');
  const ask = <T>(message: object, key: string): Promise<T> => {
    const answer = childReply<T>(child, key);
    child.send(message);
    return answer;
  };
  await ask({ start }, 'started');
  const count = (f: Record<string, number>) => {
    for (const [what, n] of Object.entries(f)) failures.set(what, (failures.get(what) ?? 0) + n);
  };
  return {
    connect: () => ask<true>({ connect: true }, 'connected'),
    /** Points per second; CPU per point of the controller (this process) and of the generator. */
    saturate: async (path: Path): Promise<Saturation> => {
      const c0 = process.cpuUsage();
      const run = await ask<Saturated & { cpu: number; failures: Record<string, number> }>(
        { saturate: { path } },
        'saturated',
      );
      count(run.failures);
      const per = Math.max(1, run.count);
      return {
        rate: run.count / run.seconds,
        count: run.count,
        cpu: cpuPer(c0, per),
        loadCpu: run.cpu / per,
      };
    },
    pace: async (path: Path, rate: number): Promise<number[]> => {
      const run = await ask<{ latencies: number[]; failures: Record<string, number> }>(
        { pace: { path, rate } },
        'paced',
      );
      count(run.failures);
      return run.latencies;
    },
    /** Closes the links; each router's count of points sent is copied back, so points go on from there. */
    finish: async (): Promise<void> => {
      const sent = await ask<number[]>({ finish: true }, 'finished');
      start.routers.forEach((r, i) => (r.n = sent[i]!));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

interface Saturation {
  rate: number;
  count: number;
  /** µs of CPU per point: this process (the controller), the generator process. */
  cpu: number;
  loadCpu: number;
}
const NONE: Saturation = { rate: NaN, count: 0, cpu: NaN, loadCpu: NaN };

async function run(name: string, database: DatabaseHandle, dataDir: string): Promise<Row> {
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
      radiusEnabled: false,
      host: '127.0.0.1',
      port: 0,
    },
  );
  const c = await createController({ config, logger: pino({ level: 'silent' }), database });
  try {
    const { port } = await c.listen();
    console.log(`[${name}] seeding ${ROUTERS.toLocaleString('en')} routers…`);
    const t0 = process.hrtime.bigint();
    const routers = await seed(c);
    console.log(`[${name}] seeded in ${(ms(t0) / 1000).toFixed(1)} s`);
    // Mean points per committed batch during a saturation run.
    const batchMean = (b0: { batches: number; points: number }) => {
      const now = c.services.qoe.ingestion.stats;
      return (now.points - b0.points) / Math.max(1, now.batches - b0.batches);
    };
    const load = await generator({
      routers,
      port,
      controllerKey: c.services.hub.identity.publicKey,
      concurrency: CONCURRENCY,
      seconds: SECONDS,
      backlog: BACKLOG,
    });
    let agentBatch = NaN;
    // Pings over the same links at saturation: the sealed round trip's cost with nothing stored.
    let linkFloor = NaN;
    let httpBatch = NaN;
    let agentSat = NONE;
    let agentLat = [NaN];
    let backlog = NONE;
    let backlogBatch = NaN;
    if (PATHS.has('link')) {
      console.log(`[${name}] linking the agents…`);
      await load.connect();
      console.log(`[${name}] ${ROUTERS.toLocaleString('en')} agents linked; agent link at saturation…`);
      const b0 = { ...c.services.qoe.ingestion.stats };
      agentSat = await load.saturate('link');
      agentBatch = batchMean(b0);
      agentLat = await load.pace('link', GOAL_RATE);
      linkFloor = (await load.saturate('ping')).rate;
      // A backlog: fewer frames in flight, each carrying BACKLOG points.
      const b1 = { ...c.services.qoe.ingestion.stats };
      backlog = await load.saturate('backlog');
      backlogBatch = batchMean(b1);
    }
    let httpSat = NONE;
    let httpLat = [NaN];
    let httpFloor = NaN;
    if (PATHS.has('http')) {
      console.log(`[${name}] HTTP route…`);
      const b0 = { ...c.services.qoe.ingestion.stats };
      httpSat = await load.saturate('http');
      httpBatch = batchMean(b0);
      httpLat = await load.pace('http', GOAL_RATE);
      // The same requests without their token: what the HTTP stack itself allows.
      httpFloor = (await load.saturate('refused')).rate;
    }
    await load.finish();
    // The ingestion alone: the service the route calls, called in this process (no HTTP, no link).
    let directSat = NONE;
    let directLat = [NaN];
    let directBatch = NaN;
    if (PATHS.has('direct')) {
      console.log(`[${name}] ingestion called directly…`);
      const direct: Send = async (r) => {
        await c.services.qoe.telemetry(r.token, { nas_id: r.nasId, ...point(r) });
      };
      const b0 = { ...c.services.qoe.ingestion.stats };
      const c0 = process.cpuUsage();
      const sat = await saturate(routers, direct, { concurrency: CONCURRENCY, seconds: SECONDS });
      directSat = {
        rate: sat.count / sat.seconds,
        count: sat.count,
        cpu: cpuPer(c0, sat.count),
        loadCpu: NaN,
      };
      directBatch = batchMean(b0);
      directLat = await pace(routers, direct, GOAL_RATE, SECONDS);
    }
    const bareCount = Math.max(agentSat.count, httpSat.count, directSat.count, 10_000);
    // Beside it, the same rows into a table with qoe_points' two keys (id; NAS and instant): what
    // storing a point costs at the least, indexes included.
    const keyed = await bareInsert(c, routers, bareCount, true);
    console.log(`[${name}] bare INSERT of ${bareCount.toLocaleString('en')} points…`);
    const bare = await bareInsert(c, routers, bareCount);
    return {
      db: name,
      directRate: directSat.rate,
      directP50: pct(directLat, 50),
      directP99: pct(directLat, 99),
      directBatch,
      agentRate: agentSat.rate,
      agentP50: pct(agentLat, 50),
      agentP99: pct(agentLat, 99),
      httpRate: httpSat.rate,
      httpP50: pct(httpLat, 50),
      httpP99: pct(httpLat, 99),
      httpFloor,
      linkFloor,
      agentBatch,
      httpBatch,
      bareRate: bare.rate,
      keyedRate: keyed.rate,
      cpu: [agentSat.cpu, backlog.cpu, httpSat.cpu, directSat.cpu, bare.cpu],
      loadCpu: [agentSat.loadCpu, backlog.loadCpu, httpSat.loadCpu],
      backlogRate: backlog.rate,
      backlogBatch,
    };
  } finally {
    await c.close();
  }
}

/** Bytes one agent sends a day at the default interval: the sealed frame of a typical point. */
async function bytesPerDay(): Promise<{ frame: number; perDay: number }> {
  const { sealFrame, deriveSessionKeys, generateEphemeralKeyPair, SequenceCounter } =
    await import('../protocol/index.js');
  const own = generateEphemeralKeyPair();
  const peer = generateEphemeralKeyPair();
  const agent = keyPair();
  const keys = deriveSessionKeys({
    role: 'agent',
    sid: randomUUID(),
    own,
    peerPublicKey: peer.publicKey,
    agentKey: agent.publicKey,
    controllerKey: keyPair().publicKey,
  });
  const r = { n: 1000 } as Router;
  const body = {
    id: randomUUID(),
    kind: 'telemetry' as const,
    at: new Date().toISOString(),
    data: { qoe: point(r) },
  };
  const frame = sealFrame('report', body, { keys, seq: new SequenceCounter().next() }).length;
  // A websocket frame adds a 2-byte header, 4 bytes of mask and (over 125 bytes) 2 of length.
  const wire = frame + 8;
  return { frame: wire, perDay: wire * (86_400 / 60) };
}

const loadBefore = load();
const rows = await onEachDatabase('qoe', PG_URL, (db, handle, dir) => run(db, handle, dir), DATABASES);

const f = (x: number, d = 1) => x.toFixed(d);
const pass = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
console.log(`\nload average (1, 5, 15 min) on ${cpus().length} cores: ${loadBefore} before, ${load()} after`);
console.log(
  `${ROUTERS.toLocaleString('en')} routers; goal ${f(GOAL_RATE, 0)} points/s (one per router every 15 s), p99 < 50 ms, at least a third of the bare INSERT rate`,
);
console.log(
  '\n| db | path | saturation points/s | points per batch | p50 / p99 ms at the goal rate | bare INSERT rows/s | ratio to bare | goal rate | p99 | third of bare |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  for (const [path, rate, batch, p50, p99] of [
    ['agent link', r.agentRate, r.agentBatch, r.agentP50, r.agentP99],
    [`agent link, backlog of ${BACKLOG} a frame`, r.backlogRate, r.backlogBatch, NaN, NaN],
    ['HTTP', r.httpRate, r.httpBatch, r.httpP50, r.httpP99],
    ['ingestion alone', r.directRate, r.directBatch, r.directP50, r.directP99],
  ] as const) {
    if (Number.isNaN(rate)) continue;
    const ratio = rate / r.bareRate;
    console.log(
      `| ${r.db} | ${path} | ${f(rate, 0)} | ${f(batch)} | ${Number.isNaN(p50) ? '–' : `${f(p50)} / ${f(p99)}`} | ${f(r.bareRate, 0)} | ${f(ratio, 3)} | ${pass(rate >= GOAL_RATE)} | ${Number.isNaN(p99) ? '–' : pass(p99 < 50)} | ${pass(ratio >= 1 / 3)} |`,
    );
  }
}
for (const r of rows)
  console.log(
    `${r.db}: bare INSERT ${f(r.bareRate, 0)} rows/s without keys, ${f(r.keyedRate, 0)} with qoe_points' two keys (id; NAS and instant)`,
  );
for (const r of rows) {
  const [link, backlog, http, direct, bare] = r.cpu.map((x) => f(x, 0));
  console.log(
    `${r.db}: the controller's CPU per point at saturation (µs; the database server's own not counted): link ${link}, backlog ${backlog}, HTTP ${http}, ingestion alone ${direct}, bare INSERT ${bare}`,
  );
  const [gLink, gBacklog, gHttp] = r.loadCpu.map((x) => f(x, 0));
  console.log(
    `${r.db}: the generator's CPU per point (its own process): link ${gLink}, backlog ${gBacklog}, HTTP ${gHttp}`,
  );
}
for (const r of rows)
  if (!Number.isNaN(r.linkFloor))
    console.log(
      `${r.db}: ping → pong over the same links (nothing stored) ${f(r.linkFloor, 0)} per second; stored points at ${f(r.agentRate / r.linkFloor, 2)}x that rate`,
    );
for (const r of rows)
  if (!Number.isNaN(r.httpFloor))
    console.log(
      `${r.db}: the same POST refused before storage (no token) ${f(r.httpFloor, 0)} requests/s; stored points at ${f(r.httpRate / r.httpFloor, 2)}x that rate`,
    );
for (const [what, n] of failures) console.log(`failed sends: ${n} × ${what}`);
const bytes = await bytesPerDay();
console.log(
  `\none agent at the default 60 s interval: ${bytes.frame} bytes per point on the wire (sealed frame + websocket header), ${(bytes.perDay / 1024).toFixed(0)} KiB per day (TLS and TCP overhead not counted)`,
);
