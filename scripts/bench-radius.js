#!/usr/bin/env node
// RADIUS benchmark: our server against FreeRADIUS, same users, same load generator, same run.
//
//   npm run bench:radius                      # SQLite controller vs FreeRADIUS files and sql
//   npm run bench:radius -- --pg postgres://postgres@127.0.0.1:5432/test   # and PostgreSQL
//   options: --tickets 100000 --duration 10 --warmup 2 --concurrency 32 --no-freeradius
//            --pin (server on CPU 0, generator on CPU 1) --keep (leave the temp dir) --max-seconds 290
//            --server-node-options "<node flags for our server process>" --no-floor
//
// Ours: a controller process (real wiring: group commit, auth log, ACTIVE → USED, sessions) on a
// fresh database holding `--tickets` vouchers, RADIUS on free loopback ports, one static NAS
// (127.0.0.1, secret testing123). The peer benchmark kit, a directory named by TICKETNET_PEER_BENCH,
// provides the rest: FreeRADIUS through its radius/setup-freeradius.sh + fr-ctl.sh with the same
// vouchers (files variant, and rlm_sql_sqlite with busy_timeout 5000 as the kit sets it up), and the
// load generator radius/radload.js (closed loop, PAP with Message-Authenticator; acct =
// Start/Interim/Stop sessions). Everything on 127.0.0.1; every process started is stopped by PID.
// The floor: a Node responder that decodes each request and answers a fixed Accept (or
// Accounting-Response) with no lookup and no bookkeeping. What radload measures against it is what
// this machine and this generator can show at all; no server's p99 can be read below it.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BENCH = process.env.TICKETNET_PEER_BENCH ?? '';
const SECRET = 'testing123';
const RATE = '2M/2M';
const SESSION_TIMEOUT = 3600;
const FLOOR = 'floor: no-op Node responder';
const FR_FILES = 'FreeRADIUS files';
const FR_SQL = 'FreeRADIUS sql (sqlite, busy_timeout 5000)';

const opts = {
  tickets: 100_000,
  duration: 10,
  warmup: 2,
  concurrency: 32,
  pg: '',
  freeradius: true,
  floor: true,
  pin: false,
  keep: false,
  maxSeconds: 290,
  /** Extra node options for our server process (e.g. "--cpu-prof" or an --import to try a change). */
  serverNodeOptions: '',
  // --serve / --serve-floor (internal): the server processes
  serve: false,
  serveFloor: false,
  db: '',
  users: '',
};
for (let a = process.argv.slice(2); a.length;) {
  const k = a.shift();
  if (k === '--no-freeradius') opts.freeradius = false;
  else if (k === '--no-floor') opts.floor = false;
  else if (k === '--serve-floor') opts.serveFloor = true;
  else if (k === '--pin') opts.pin = true;
  else if (k === '--keep') opts.keep = true;
  else if (k === '--serve') opts.serve = true;
  else if (k === '--max-seconds') opts.maxSeconds = Number(a.shift());
  else if (k === '--server-node-options') opts.serverNodeOptions = a.shift() ?? '';
  else if (k?.startsWith('--') && k.slice(2) in opts) {
    const key = k.slice(2);
    opts[key] = typeof opts[key] === 'number' ? Number(a.shift()) : a.shift();
  } else {
    console.error(`unknown option ${k}`);
    process.exit(2);
  }
}

if (opts.serve) await serve();
else if (opts.serveFloor) await serveFloor();
else if (!BENCH) {
  console.error(
    'set TICKETNET_PEER_BENCH to the peer benchmark kit (radius/radload.js, radius/fr-ctl.sh, …)',
  );
  process.exit(2);
} else await main();

// ---- the server process -----------------------------------------------------------------------

async function serve() {
  const { createController } = await import('../controller/controller.js');
  const { loadConfig } = await import('../controller/config.js');
  const { createLogger } = await import('../controller/logger.js');
  const { StaticNasDirectory } = await import('../controller/radius/nas-directory.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'tn-bench-data-'));
  const config = loadConfig(
    {},
    {
      db: opts.db,
      dataDir,
      jwtSecret: 'bench-secret-bench-secret-bench-secret-0',
      apiQuota: 'off',
      authFailureQuota: 'off',
      moneyQuota: 'off',
      logLevel: 'warn',
      scheduler: false,
      port: 0,
      radiusEnabled: true,
      radiusHost: '127.0.0.1',
      radiusAuthPort: 0,
      radiusAcctPort: 0,
    },
  );
  const nas = new StaticNasDirectory();
  const controller = await createController({ config, logger: createLogger('warn'), nasDirectory: nas });
  const { accounts, tickets, radius } = controller.services;
  const client = await accounts.create({
    email: `bench-${randomUUID()}@example.com`,
    password: 'bench-pass-1',
    name: 'Bench',
    kind: 'client',
  });
  nas.set('127.0.0.1', { nasId: randomUUID(), clientId: client.id, secret: SECRET });
  await tickets.setProfile(client.id, 'bench', { rate_limit: RATE, time_limit_seconds: SESSION_TIMEOUT });
  const t0 = Date.now();
  const created = await tickets.createTickets(client.id, { profileId: 'bench', quantity: opts.tickets });
  const createMs = Date.now() - t0;
  writeFileSync(opts.users, created.map((t) => t.code).join('\n') + '\n');
  await controller.listen();
  const { auth, acct } = controller.radiusAddresses;
  // How long the server's event loop was held up while the loads ran (GC pauses, checkpoints,
  // waits for a CPU): the part of the latency tail that is the server's own.
  const eventLoop = monitorEventLoopDelay({ resolution: 1 });
  eventLoop.enable();
  console.log(`READY ${JSON.stringify({ auth: auth.port, acct: acct.port, createMs })}`);

  let stopping = false;
  process.on('SIGTERM', () => {
    if (stopping) return;
    stopping = true;
    eventLoop.disable();
    const eventLoopDelayMs = {
      p50: +(eventLoop.percentile(50) / 1e6).toFixed(1),
      p99: +(eventLoop.percentile(99) / 1e6).toFixed(1),
      max: +(eventLoop.max / 1e6).toFixed(1),
    };
    (async () => {
      await radius.flush();
      const db = controller.database.db;
      const n = async (q) => Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst()).n);
      const stats = {
        authLog: await n(db.selectFrom('radius_auth_log')),
        tickets: await tickets.countTickets(client.id),
        sessions: await n(db.selectFrom('radius_sessions')),
        sessionsStopped: await n(db.selectFrom('radius_sessions').where('stopped_at', 'is not', null)),
        rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
        eventLoopDelayMs,
      };
      await controller.close();
      console.log(`STATS ${JSON.stringify(stats)}`);
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    })().catch((err) => {
      console.error(err);
      process.exit(1);
    });
  });
}

// The floor: decode (Message-Authenticator checked by the codec), answer a fixed reply.
async function serveFloor() {
  const radius = (await import('radius')).default;
  const bind = (reply) =>
    new Promise((resolvePromise) => {
      const socket = createSocket('udp4');
      socket.on('message', (msg, rinfo) => {
        const packet = radius.decode({ packet: msg, secret: SECRET });
        socket.send(reply(packet), rinfo.port, rinfo.address);
      });
      socket.bind(0, '127.0.0.1', () => resolvePromise(socket.address().port));
    });
  const auth = await bind((packet) =>
    radius.encode_response({
      packet,
      code: 'Access-Accept',
      secret: SECRET,
      attributes: [['Session-Timeout', SESSION_TIMEOUT]],
      add_message_authenticator: true,
    }),
  );
  const acct = await bind((packet) =>
    radius.encode_response({ packet, code: 'Accounting-Response', secret: SECRET }),
  );
  console.log(`READY ${JSON.stringify({ auth, acct, createMs: 0 })}`);
  process.on('SIGTERM', () => {
    console.log(`STATS ${JSON.stringify({ rssMb: Math.round(process.memoryUsage().rss / 2 ** 20) })}`);
    process.exit(0);
  });
}

// ---- the orchestrator -------------------------------------------------------------------------

async function main() {
  const started = new Set(); // child processes still running
  const frRunning = new Set(); // FreeRADIUS variants to stop
  const work = mkdtempSync(join(tmpdir(), 'tn-radius-bench-'));
  let pgDb = null;
  const cleanup = () => {
    for (const child of started) child.kill('SIGKILL');
    for (const v of frRunning)
      spawnSync('bash', [join(BENCH, 'radius/fr-ctl.sh'), 'stop', v, join(work, 'fr')]);
    if (!opts.keep) rmSync(work, { recursive: true, force: true });
  };
  const deadline = setTimeout(() => {
    console.error(`bench-radius: over ${opts.maxSeconds} s, stopping everything`);
    cleanup();
    process.exit(1);
  }, opts.maxSeconds * 1000);
  deadline.unref();
  process.on('SIGINT', () => {
    cleanup();
    process.exit(130);
  });

  const radload = join(BENCH, 'radius/radload.js');
  const loadEnv = prepareLoadGenerator();
  const gen = opts.pin ? ['taskset', '-c', '1', process.execPath] : [process.execPath];
  const srv = opts.pin ? ['taskset', '-c', '0'] : [];

  const load = async (mode, port, pid, users) => {
    const args = [
      radload,
      '--json',
      '--mode',
      mode,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--secret',
      SECRET,
    ];
    args.push(
      '--users',
      users,
      '--concurrency',
      String(opts.concurrency),
      '--duration',
      String(opts.duration),
    );
    args.push('--warmup', String(opts.warmup), '--pid', String(pid));
    const { out, code } = await run(gen[0], [...gen.slice(1), ...args], { env: loadEnv });
    if (code !== 0) throw new Error(`radload ${mode} failed:\n${out}`);
    return JSON.parse(out.trim().split('\n').pop());
  };

  const rows = [];
  const targets = [{ name: 'ticketnet (SQLite)', db: `sqlite:${join(work, 'sqlite', 'ticketnet.db')}` }];
  if (opts.pg) {
    pgDb = await createPgDatabase(opts.pg);
    targets.push({ name: 'ticketnet (PostgreSQL)', db: pgDb.url });
  }
  if (opts.floor) targets.push({ name: FLOOR, floor: true });
  const users = join(work, 'users.txt');
  try {
    for (const target of targets) {
      const t = Date.now();
      const nodeOptions = opts.serverNodeOptions.split(' ').filter(Boolean);
      const cmd = [
        ...srv,
        process.execPath,
        ...nodeOptions,
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        ...(target.floor
          ? ['--serve-floor']
          : ['--serve', '--db', target.db, '--tickets', String(opts.tickets)]),
      ];
      const child = spawn(cmd[0], [...cmd.slice(1), '--users', users], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started.add(child);
      const lines = lineReader(child);
      const ready = JSON.parse((await lines.waitFor(/^READY /, 180_000)).slice(6));
      if (!target.floor)
        console.error(
          `${target.name}: ${opts.tickets} tickets created in ${ready.createMs} ms (setup ${Date.now() - t} ms)`,
        );
      const auth = await load('auth', ready.auth, child.pid, users);
      const acct = await load('acct', ready.acct, child.pid, users);
      child.kill('SIGTERM');
      const stats = JSON.parse((await lines.waitFor(/^STATS /, 60_000)).slice(6));
      await lines.exited;
      started.delete(child);
      rows.push({ server: target.name, auth, acct, stats });
      console.error(`${target.name}: ${JSON.stringify(stats)}`);
    }

    if (opts.freeradius) {
      if (!existsSync('/usr/sbin/freeradius')) {
        console.error(
          'FreeRADIUS is not installed (apt-get install freeradius freeradius-utils): peer rows skipped',
        );
      } else {
        const fr = join(work, 'fr');
        writeFreeradiusUsers(readFileSync(users, 'utf8').split('\n').filter(Boolean), join(fr, 'data'));
        const [authPort, acctPort] = [await freeUdpPort(), await freeUdpPort()];
        const env = { ...process.env, AUTH_PORT: String(authPort), ACCT_PORT: String(acctPort), SECRET };
        if (opts.pin) env.TASKSET = '0';
        for (const [variant, base, extra] of [
          [FR_FILES, 'files', {}],
          [FR_SQL, 'sql', { SQL_BUSY_TIMEOUT: '5000' }],
        ]) {
          const setup = await run('bash', [join(BENCH, 'radius/setup-freeradius.sh'), base, fr], {
            env: { ...env, ...extra },
          });
          if (setup.code !== 0) throw new Error(`setup-freeradius.sh ${base} failed:\n${setup.out}`);
          const start = await run('bash', [join(BENCH, 'radius/fr-ctl.sh'), 'start', base, fr], { env });
          if (start.code !== 0) throw new Error(`fr-ctl.sh start ${base} failed:\n${start.out}`);
          frRunning.add(base);
          const pid = Number(start.out.trim().split('\n').pop());
          const auth = await load('auth', authPort, pid, join(fr, 'data/users.txt'));
          const acct = await load('acct', acctPort, pid, join(fr, 'data/users.txt'));
          await run('bash', [join(BENCH, 'radius/fr-ctl.sh'), 'stop', base, fr], { env });
          frRunning.delete(base);
          let stats = {};
          if (base === 'sql') {
            const q = spawnSync('sqlite3', [
              join(fr, 'sql/radius.db'),
              'select count(*) from radpostauth; select count(*) from radacct;',
            ]);
            const [postauth, radacct] = String(q.stdout).trim().split('\n').map(Number);
            stats = { radpostauth: postauth, radacct };
          }
          rows.push({ server: variant, auth, acct, stats });
        }
      }
    }
  } finally {
    cleanup();
    if (pgDb) await pgDb.drop();
    clearTimeout(deadline);
  }
  printTable(rows);
  printGoals(rows);
}

function printTable(rows) {
  const f = (n, d = 0) =>
    n === null || n === undefined
      ? '-'
      : Number(n).toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log('');
  console.log(
    `RADIUS benchmark: ${opts.tickets.toLocaleString('en-US')} vouchers, radload ${opts.concurrency} in flight, ` +
      `${opts.duration} s after ${opts.warmup} s warm-up, loopback, ${opts.pin ? 'server CPU 0 / generator CPU 1' : 'unpinned (server and generator share the cores)'}`,
  );
  console.log('');
  console.log(
    '| server | auth/s | p50 ms | p99 ms | rejects | acct/s | acct p99 ms | CPU ms/req auth | CPU ms/req acct | timeouts | server / generator CPU % (auth) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const rejects = r.auth.codes.reject ?? 0;
    console.log(
      `| ${r.server} | ${f(r.auth.rps)} | ${f(r.auth.latency_ms.p50, 3)} | ${f(r.auth.latency_ms.p99, 3)} | ${f(rejects)} | ` +
        `${f(r.acct.rps)} | ${f(r.acct.latency_ms.p99, 3)} | ${f(r.auth.server_cpu_ms_per_req, 4)} | ${f(r.acct.server_cpu_ms_per_req, 4)} | ` +
        `${r.auth.timeouts + r.acct.timeouts} | ${f(r.auth.server_cpu_pct)} / ${f(r.auth.gen_cpu_pct)} |`,
    );
  }
  console.log('');
  for (const r of rows) console.log(`${r.server}: ${JSON.stringify(r.stats)}`);
}

/** The goals for our SQLite server, each against the peer row it names, from this run. */
function printGoals(rows) {
  const row = (name) => rows.find((r) => r.server === name);
  const ours = row('ticketnet (SQLite)');
  const files = row(FR_FILES);
  const sqlRow = row(FR_SQL);
  const floor = row(FLOOR);
  if (!ours) return;
  const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
  const n = (x) => Math.round(x).toLocaleString('en-US');
  console.log('');
  console.log('goals (ticketnet on SQLite, this run):');
  if (sqlRow) {
    const need = 3 * sqlRow.auth.rps;
    console.log(
      `  auth/s >= 3x FreeRADIUS+SQL   ${n(ours.auth.rps)} vs ${n(need)}  ${verdict(ours.auth.rps >= need)}`,
    );
    const needAcct = 3 * sqlRow.acct.rps;
    console.log(
      `  acct/s >= 3x FreeRADIUS+SQL   ${n(ours.acct.rps)} vs ${n(needAcct)}  ${verdict(ours.acct.rps >= needAcct)}`,
    );
  }
  if (files) {
    const need = files.auth.rps / 2;
    console.log(
      `  auth/s >= FreeRADIUS files / 2  ${n(ours.auth.rps)} vs ${n(need)}  ${verdict(ours.auth.rps >= need)}`,
    );
  }
  const p99 = ours.auth.latency_ms.p99;
  console.log(`  auth p99 < 5 ms               ${p99} ms  ${verdict(p99 < 5)}`);
  if (floor) {
    const peers = [files, floor].filter(Boolean).map((r) => `${r.server} ${r.auth.latency_ms.p99} ms`);
    console.log(`    p99 of the references in this run: ${peers.join(', ')}`);
    if (floor.auth.latency_ms.p99 >= 5)
      console.log(
        '    the no-op responder itself is over 5 ms: this machine and generator cannot show a p99 under 5 ms',
      );
  }
}

// ---- helpers ----------------------------------------------------------------------------------

/** radload needs the `radius` package: the bench's own node_modules, else ours (same version). */
function prepareLoadGenerator() {
  if (!existsSync(join(BENCH, 'node_modules/radius'))) {
    console.error(`installing the load generator's dependencies in ${BENCH}`);
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: BENCH, stdio: 'inherit' });
    if (r.status !== 0) console.error("npm install failed; using this project's radius package");
  }
  return { ...process.env, NODE_PATH: join(ROOT, 'node_modules') };
}

function run(cmd, args, { env } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => resolvePromise({ code, out }));
  });
}

function lineReader(child) {
  let buf = '';
  let all = '';
  const waiters = [];
  const exited = new Promise((r) => child.on('exit', r));
  const onData = (d) => {
    buf += d;
    all += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      for (const w of [...waiters]) {
        if (w.re.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', (d) => (all += d));
  return {
    exited,
    waitFor(re, timeoutMs) {
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(() => reject(new Error(`timeout waiting for ${re}:\n${all}`)), timeoutMs);
        waiters.push({ re, resolve: (l) => (clearTimeout(timer), resolveLine(l)) });
        exited.then((code) => reject(new Error(`server exited ${code} before ${re}:\n${all}`)));
      });
    },
  };
}

function freeUdpPort() {
  return new Promise((resolvePort) => {
    const s = createSocket('udp4');
    s.bind(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolvePort(port));
    });
  });
}

/** The same vouchers in the three files gen-users.js writes (users.txt, authorize, users.sql). */
function writeFreeradiusUsers(codes, dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'users.txt'), codes.join('\n') + '\n');
  writeFileSync(
    join(dir, 'authorize'),
    codes
      .map(
        (c) =>
          `${c} Cleartext-Password := "${c}"\n\tMikrotik-Rate-Limit = "${RATE}",\n\tSession-Timeout = ${SESSION_TIMEOUT}\n`,
      )
      .join('\n') + '\n',
  );
  const sql = ['BEGIN;'];
  for (const c of codes) {
    sql.push(
      `INSERT INTO radcheck (username,attribute,op,value) VALUES ('${c}','Cleartext-Password',':=','${c}');`,
    );
    sql.push(
      `INSERT INTO radreply (username,attribute,op,value) VALUES ('${c}','Mikrotik-Rate-Limit',':=','${RATE}');`,
    );
    sql.push(
      `INSERT INTO radreply (username,attribute,op,value) VALUES ('${c}','Session-Timeout',':=','${SESSION_TIMEOUT}');`,
    );
  }
  sql.push('COMMIT;');
  writeFileSync(join(dir, 'users.sql'), sql.join('\n') + '\n');
}

/** A fresh database on the server of `url` (dropped after), so no other schema can disturb the migrations. */
async function createPgDatabase(url) {
  const pg = (await import('pg')).default;
  const name = `tn_radius_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
