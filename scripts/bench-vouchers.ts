// `npm run bench:vouchers`: the reseller money path under load, on SQLite and PostgreSQL.
// - a 1,000-ticket batch through the HTTP handler (p50/p99), with 1,000,000 tickets already stored;
// - a 1,000-item listing page over those 1,000,000 tickets (first page and a deep page);
// - 50 concurrent batches from 10 resellers, then the ledger of each checked against its balance.
// Goals: batch < 50 ms p50 on SQLite; page < 30 ms p50.
import { cpus } from 'node:os';
import { inject } from 'light-my-request';
import { pino } from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../controller/config.js';
import { createController, type Controller } from '../controller/controller.js';
import { type DatabaseHandle } from '../controller/db/database.js';
import { load, ms, pct, onEachDatabase } from './bench-support.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const TICKETS = Number(args.get('tickets') ?? 1_000_000);
const REPS = Number(args.get('reps') ?? 30);
const PG_URL = args.get('pg') ?? process.env.TICKETNET_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Row {
  db: string;
  fill_s: number;
  batch_p50: number;
  batch_p99: number;
  page0_p50: number;
  page0_p99: number;
  deep_p50: number;
  deep_p99: number;
  concurrent_ok: number;
  concurrent_refused: number;
  ledger_ok: boolean;
}

async function call(c: Controller, method: string, url: string, token: string, body?: unknown) {
  const res = await inject(c.handler, {
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, body: JSON.parse(res.payload) };
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
    },
  );
  const c = await createController({ config, logger: pino({ level: 'silent' }), database });
  try {
    const s = c.services;
    const client = await s.accounts.register({
      email: `bench-${name}@example.com`,
      password: 'bench-pass-1',
      name: 'Bench',
      kind: 'client',
    });
    const clientId = client.account.id;
    await s.licences.grant(clientId, 'RADIUS_ANNUAL', null);
    await s.profiles.setProfile(clientId, '1h-100F', { price_xof: 100, time_limit_seconds: 3600 });
    const token = client.token;
    const api = '/v1/radius';

    // Fill: the store already holds TICKETS tickets of another (local) reseller.
    const t0 = process.hrtime.bigint();
    for (let done = 0; done < TICKETS; done += 10_000) {
      await s.tickets.createTickets(clientId, {
        profileId: '1h-100F',
        quantity: Math.min(10_000, TICKETS - done),
        resellerName: 'filler',
      });
    }
    const fillS = ms(t0) / 1000;
    // Production databases have statistics (PostgreSQL's autovacuum, SQLite's optimize on open);
    // a table filled a second ago has none, and the planner would sort a million rows per page.
    await sql`analyze`.execute(database.db);

    await call(c, 'POST', `${api}/resellers`, token, {
      username: 'bench',
      max_batch_size: 1000,
      max_users_total: 10_000_000,
    });
    await call(c, 'POST', `${api}/resellers/bench/topup`, token, { amount: 100_000_000 });
    const rtoken = (await call(c, 'POST', `${api}/resellers/bench/token`, token)).body.token as string;

    const batch: number[] = [];
    for (let i = 0; i < REPS; i++) {
      const t = process.hrtime.bigint();
      const res = await call(c, 'POST', `${api}/vouchers/batch`, rtoken, {
        profile_id: '1h-100F',
        quantity: 1000,
      });
      batch.push(ms(t));
      if (res.status !== 201) throw new Error(`batch failed: ${JSON.stringify(res.body)}`);
    }
    const page0: number[] = [];
    const deep: number[] = [];
    for (let i = 0; i < REPS; i++) {
      let t = process.hrtime.bigint();
      const first = await call(c, 'GET', `${api}/vouchers?limit=1000&offset=0`, token);
      page0.push(ms(t));
      if (first.body.vouchers.length !== 1000) throw new Error('short first page');
      const offset = Math.floor(TICKETS / 2 / 1000) * 1000;
      t = process.hrtime.bigint();
      const mid = await call(c, 'GET', `${api}/vouchers?limit=1000&offset=${offset}`, token);
      deep.push(ms(t));
      if (mid.body.vouchers.length !== 1000) throw new Error('short deep page');
    }

    // 10 resellers, 50 batches of 100 at once; balances sized so that some must be refused.
    const tokens: string[] = [];
    for (let r = 0; r < 10; r++) {
      await call(c, 'POST', `${api}/resellers`, token, {
        username: `r${r}`,
        balance: 35_000,
        max_batch_size: 100,
        max_users_total: 100_000,
      });
      tokens.push((await call(c, 'POST', `${api}/resellers/r${r}/token`, token)).body.token);
    }
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(c, 'POST', `${api}/vouchers/batch`, tokens[i % 10]!, { profile_id: '1h-100F', quantity: 100 }),
      ),
    );
    const ok = results.filter((r) => r.status === 201).length;
    const refused = results.filter(
      (r) => r.status === 400 && r.body.error.code === 'INSUFFICIENT_BALANCE',
    ).length;
    let ledgerOk = ok + refused === 50;
    for (let r = 0; r < 10; r++) {
      const check = await s.resellers.ledgerCheck(clientId, `r${r}`);
      const okHere = results.filter((x, i) => i % 10 === r && x.status === 201).length;
      ledgerOk &&=
        check.ledger === check.balance && check.balance === 35_000 - okHere * 10_000 && check.balance >= 0;
    }
    return {
      db: name,
      fill_s: Math.round(fillS * 10) / 10,
      batch_p50: pct(batch, 50),
      batch_p99: pct(batch, 99),
      page0_p50: pct(page0, 50),
      page0_p99: pct(page0, 99),
      deep_p50: pct(deep, 50),
      deep_p99: pct(deep, 99),
      concurrent_ok: ok,
      concurrent_refused: refused,
      ledger_ok: ledgerOk,
    };
  } finally {
    await c.close();
  }
}

const loadBefore = load();
console.log(`filling ${TICKETS.toLocaleString('en')} tickets per database, ${REPS} repetitions per figure…`);
const rows = await onEachDatabase('vouchers', PG_URL, (db, handle, dir) => run(db, handle, dir));

const f = (x: number) => x.toFixed(1);
console.log(`\nload average (1, 5, 15 min) on ${cpus().length} cores: ${loadBefore} before, ${load()} after`);
console.log(
  '\n| db | fill (s) | batch of 1,000 p50 / p99 ms | page of 1,000 (offset 0) p50 / p99 ms | page of 1,000 (offset 500k) p50 / p99 ms | 50 concurrent batches ok / refused | ledger = balance |',
);
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.db} | ${r.fill_s} | ${f(r.batch_p50)} / ${f(r.batch_p99)} | ${f(r.page0_p50)} / ${f(r.page0_p99)} | ${f(r.deep_p50)} / ${f(r.deep_p99)} | ${r.concurrent_ok} / ${r.concurrent_refused} | ${r.ledger_ok ? 'yes' : 'NO'} |`,
  );
}
const sqlite = rows.find((r) => r.db === 'sqlite')!;
console.log(
  `\ngoal: batch p50 < 50 ms on SQLite: ${sqlite.batch_p50 < 50 ? 'PASS' : 'FAIL'} (${f(sqlite.batch_p50)} ms)`,
);
for (const r of rows)
  console.log(
    `goal: page p50 < 30 ms on ${r.db}: ${r.page0_p50 < 30 ? 'PASS' : 'FAIL'} (first page ${f(r.page0_p50)} ms; deep page ${f(r.deep_p50)} ms)`,
  );
if (rows.some((r) => !r.ledger_ok)) process.exitCode = 1;
