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
//      and this process's client allow, beside which the HTTP figure is read;
//   2c. the ingestion alone: the service the route calls, called in this process with the same
//      tokens and points (no HTTP, no link), the same two figures;
//   3. bare: as many points as the link's saturation run took, in INSERTs of 500 rows into a table
//      shaped like qoe_points;
// and once: the bytes per day one agent sends at the default interval (60 s).
// Each router's points are 15 s apart with growing counters, so each one counts usage and reads the
// alert bound, as in the field. Generator and controller share this process (and the machine):
// the load average is printed with the figures.
//   node --import tsx scripts/bench-qoe.ts [--routers 10000] [--seconds 10] [--concurrency 512]
//     [--backlog 50] [--paths link,http,direct] [--db sqlite,postgres] [--pg URL]
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../controller/config.js';
import { createController, type Controller } from '../controller/controller.js';
import { type DatabaseHandle } from '../controller/db/database.js';
import type { AllocationsTable } from '../controller/modules/allocations/tables.js';
import type { NasTable } from '../controller/modules/nas/tables.js';
import type { QoeBridgeTokensTable } from '../controller/modules/qoe/tables.js';
import { QoeBenchLink } from './bench-qoe-link.js';
import { load, ms, pct, onEachDatabase } from './bench-support.js';

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

interface Router {
  allocationId: string;
  nasId: string;
  token: string;
  agentId: string;
  secretKey: string;
  link?: QoeBenchLink;
  /** Points sent so far: the next one is 15 s after the last. */
  n: number;
}

const BASE = Date.now() - 12 * 3_600_000;
function point(r: Router) {
  const k = r.n++;
  return {
    observed_at: new Date(BASE + k * 15_000).toISOString(),
    rtt_ms: 600 + (k % 7),
    jitter_ms: 12.5,
    packet_loss_pct: k % 50 === 0 ? 2 : 0,
    tx_bps: 800_000,
    rx_bps: 4_000_000,
    wan_rx_bytes: 1_000_000_000 + k * 7_500_000,
    wan_tx_bytes: 100_000_000 + k * 1_500_000,
    top_consumers: [
      { username: 'user-a1b2', ip: '10.5.50.12', rx_bps: 2_100_000 },
      { username: 'user-c3d4', ip: '10.5.50.31', rx_bps: 900_000 },
      { username: 'user-e5f6', ip: '10.5.50.77', rx_bps: 400_000 },
    ],
  };
}

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

type Send = (r: Router) => Promise<void>;

// A point refused or a link closed under load is counted and printed, never left waiting on.
const failures = new Map<string, number>();
const failed = (err: unknown) => {
  const what = (err as Error).message.slice(0, 120);
  failures.set(what, (failures.get(what) ?? 0) + 1);
};

/**
 * Points per second with `CONCURRENCY` sends in flight for SECONDS, round robin over the routers;
 * each send carries `points`.
 */
async function saturation(
  routers: Router[],
  send: Send,
  points = 1,
): Promise<{ rate: number; count: number; cpu: number }> {
  let next = 0;
  let count = 0;
  const until = Date.now() + SECONDS * 1000;
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        try {
          await send(routers[next++ % routers.length]!);
          count += points;
        } catch (err) {
          failed(err);
        }
      }
    }),
  );
  return { rate: count / (ms(t0) / 1000), count, cpu: cpuPer(c0, count) };
}

/** Microseconds of this process's CPU (user and system) per item since `c0`. */
const cpuPer = (c0: NodeJS.CpuUsage, count: number): number => {
  const u = process.cpuUsage(c0);
  return (u.user + u.system) / Math.max(1, count);
};

/** Latency per point (ms) at `rate` points per second, sent on a 10 ms tick for SECONDS. */
async function paced(routers: Router[], send: Send, rate: number): Promise<number[]> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  let next = 0;
  let owed = 0;
  const until = Date.now() + SECONDS * 1000;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      if (Date.now() >= until) {
        clearInterval(tick);
        resolve();
        return;
      }
      owed += rate / 100;
      for (; owed >= 1; owed--) {
        const t0 = process.hrtime.bigint();
        pending.push(send(routers[next++ % routers.length]!).then(() => void latencies.push(ms(t0)), failed));
      }
    }, 10);
  });
  await Promise.all(pending);
  return latencies;
}

async function connectAll(c: Controller, port: number, routers: Router[]): Promise<void> {
  const url = `ws://127.0.0.1:${port}/agent/v1`;
  const key = c.services.hub.identity.publicKey;
  // Below the hub's handshakes per address (128): a refused upgrade is tried again.
  for (let i = 0; i < routers.length; i += 100) {
    await Promise.all(
      routers.slice(i, i + 100).map(async (r) => {
        for (let attempt = 1; ; attempt++) {
          r.link = new QoeBenchLink(url, { agent_id: r.agentId, secret_key: r.secretKey }, key);
          const link = r.link;
          // A handshake that never ends (a frame lost under load) is given up and tried again.
          const timer = setTimeout(() => link.close(), 15_000);
          try {
            return await link.linked;
          } catch (err) {
            if (attempt >= 5) throw err;
            await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
          } finally {
            clearTimeout(timer);
          }
        }
      }),
    );
    if ((i + 100) % 1000 === 0) console.log(`  ${i + 100} linked`);
  }
}

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
  /** Points per second and per batch of agents sending a backlog of BACKLOG points a frame. */
  backlogRate: number;
  backlogBatch: number;
}

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
    const viaLink: Send = (r) =>
      r.link!.report({
        id: randomUUID(),
        kind: 'telemetry',
        at: new Date().toISOString(),
        data: { qoe: point(r) },
      });
    // Mean points per committed batch during a saturation run.
    const batchMean = (b0: { batches: number; points: number }) => {
      const now = c.services.qoe.ingestion.stats;
      return (now.points - b0.points) / Math.max(1, now.batches - b0.batches);
    };
    let agentBatch = NaN;
    // Pings over the same links at saturation: the sealed round trip's cost with nothing stored.
    let linkFloor = NaN;
    let httpBatch = NaN;
    let agentSat = { rate: NaN, count: 0, cpu: NaN };
    let agentLat = [NaN];
    let backlog = { rate: NaN, count: 0, cpu: NaN };
    let backlogBatch = NaN;
    if (PATHS.has('link')) {
      console.log(`[${name}] linking the agents…`);
      await connectAll(c, port, routers);
      console.log(`[${name}] ${ROUTERS.toLocaleString('en')} agents linked; agent link at saturation…`);
      const b0 = { ...c.services.qoe.ingestion.stats };
      agentSat = await saturation(routers, viaLink);
      agentBatch = batchMean(b0);
      agentLat = await paced(routers, viaLink, GOAL_RATE);
      linkFloor = (await saturation(routers, (r) => r.link!.ping())).rate;
      // A backlog: fewer frames in flight, each carrying BACKLOG points.
      const viaBacklog: Send = (r) =>
        r.link!.reports(
          Array.from({ length: BACKLOG }, () => ({
            id: randomUUID(),
            kind: 'telemetry' as const,
            at: new Date().toISOString(),
            data: { qoe: point(r) },
          })),
        );
      const b1 = { ...c.services.qoe.ingestion.stats };
      backlog = await saturation(routers, viaBacklog, BACKLOG);
      backlogBatch = batchMean(b1);
    }
    let httpSat = { rate: NaN, count: 0, cpu: NaN };
    let httpLat = [NaN];
    console.log(`[${name}] HTTP route…`);
    // node:http on kept connections: `fetch` costs this process several times the CPU per request,
    // which the figures would charge to the route
    const client = new HttpAgent({ keepAlive: true, maxSockets: CONCURRENCY });
    const post = (headers: Record<string, string>, body: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/api/v1/radius/qoe/telemetry',
            method: 'POST',
            agent: client,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              ...headers,
            },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const http: Send = async (r) => {
      const res = await post(
        { 'x-vpn-bridge-token': r.token },
        JSON.stringify({ nas_id: r.nasId, ...point(r) }),
      );
      if (res.status !== 202) throw new Error(`telemetry answered ${res.status}: ${res.text}`);
    };
    // The same requests without their token: refused before any read or write, they show what
    // the HTTP stack itself (and this process's client) allows.
    const refused: Send = async (r) => {
      const res = await post({}, JSON.stringify({ nas_id: r.nasId, ...point(r) }));
      if (res.status !== 401) throw new Error(`telemetry without a token answered ${res.status}`);
    };
    let httpFloor = NaN;
    if (PATHS.has('http')) {
      const b0 = { ...c.services.qoe.ingestion.stats };
      httpSat = await saturation(routers, http);
      httpBatch = batchMean(b0);
      httpLat = await paced(routers, http, GOAL_RATE);
      httpFloor = (await saturation(routers, refused)).rate;
    }
    client.destroy();
    // The ingestion alone: the service the route calls, called in this process (no HTTP, no link).
    let directSat = { rate: NaN, count: 0, cpu: NaN };
    let directLat = [NaN];
    let directBatch = NaN;
    if (PATHS.has('direct')) {
      console.log(`[${name}] ingestion called directly…`);
      const direct: Send = async (r) => {
        await c.services.qoe.telemetry(r.token, { nas_id: r.nasId, ...point(r) });
      };
      const b0 = { ...c.services.qoe.ingestion.stats };
      directSat = await saturation(routers, direct);
      directBatch = batchMean(b0);
      directLat = await paced(routers, direct, GOAL_RATE);
    }
    const bareCount = Math.max(agentSat.count, httpSat.count, directSat.count, 10_000);
    // Beside it, the same rows into a table with qoe_points' two keys (id; NAS and instant): what
    // storing a point costs at the least, indexes included.
    const keyed = await bareInsert(c, routers, bareCount, true);
    console.log(`[${name}] bare INSERT of ${bareCount.toLocaleString('en')} points…`);
    const bare = await bareInsert(c, routers, bareCount);
    for (const r of routers) r.link?.close();
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
    `${r.db}: this process's CPU per point at saturation (µs; the database server's own not counted): link ${link}, backlog ${backlog}, HTTP ${http}, ingestion alone ${direct}, bare INSERT ${bare}`,
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
