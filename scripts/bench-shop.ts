// The shop part of `npm run bench:remote-access` (scripts/bench-remote-access.ts runs it): the
// ticket shop's readiness and metrics over 1,000,000 shop sales (`--sales N` for a reduced check),
// on SQLite and PostgreSQL, through the HTTP handler (p50/p99). Beside them, in the same run:
// - floor: GET /clients/store-config (one row by key through the same stack);
// - peer: the same sales figures summed from the sales table itself (what the maintained daily
//   totals avoid);
// - the plans of every statement readiness and metrics send, with any full scan of a shop table flagged.
// The sales are seeded in bulk (consistent rows: sales, ledger, daily totals, wallet).
import { cpus } from 'node:os';
import { inject } from 'light-my-request';
import { pino } from 'pino';
import { sql, type CompiledQuery } from 'kysely';
import { loadConfig } from '../controller/config.js';
import { createController, type Controller } from '../controller/controller.js';
import { newId } from '../controller/core/ids.js';
import { type DatabaseHandle } from '../controller/db/database.js';
import { load, ms, pct, onEachDatabase } from './bench-support.js';

export interface ShopBenchOptions {
  /** Shop sales seeded per database (1,000,000 for the figures; fewer to check the bench runs). */
  sales: number;
  /** Repetitions per timed figure. */
  reps: number;
  pgUrl: string;
}

const DAYS = 365;
// The bench's "now": the last day of the seeded year.
const NOW = new Date('2026-11-21T12:00:00.000Z');

interface Row {
  db: string;
  fill_s: number;
  floor_p50: number;
  readiness_p50: number;
  readiness_p99: number;
  metrics_p50: number;
  metrics_p99: number;
  naive_p50: number;
  scans: string[];
  plans: string[];
}

async function call(c: Controller, method: string, url: string, token: string, body?: unknown) {
  const res = await inject(c.handler, {
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.payload}`);
  return JSON.parse(res.payload);
}

async function timed(reps: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(ms(t));
  }
  return out;
}

/**
 * `sales` sales over a year for one tenant, written by the database itself (a million rows through
 * the driver would take minutes): 4 in 5 collected by the platform with their ledger lines and
 * running balance, each sale's stock ticket marked sold, 50 tickets in stock, the daily totals and
 * the wallet they add up to.
 */
async function seed(name: string, database: DatabaseHandle, clientId: string, sales: number): Promise<void> {
  const { db } = database;
  const span = DAYS * 86_400;
  const start = new Date(NOW.getTime() - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  // The series and the timestamps are the only dialect-specific text, and only here.
  const series =
    name === 'sqlite'
      ? sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${sales - 1})`
      : sql`with n(i) as (select generate_series(0, ${sales - 1}))`;
  const soldAt =
    name === 'sqlite'
      ? sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${start}, '+' || (i * ${span} / ${sales}) || ' seconds')`
      : sql`to_char((${start}::timestamp + (i * ${span}::bigint / ${sales}) * interval '1 second'), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  await sql`${series}
    insert into shop_sales (id, client_id, reference, amount_xof, collected_by, provider, profile_name, ticket_code, sold_at)
    select 's' || (1000000000 + i), ${clientId}, 'bench-' || i,
      case i % 4 when 0 then 200 when 1 then 500 when 2 then 1000 else 2000 end,
      case when i % 5 = 0 then 'MERCHANT' else 'PLATFORM' end,
      case when i % 5 = 0 then 'paydunya' end, '1h', 'T' || i, ${soldAt}
    from n`.execute(db);
  await sql`insert into shop_ledger (id, client_id, type, amount, balance_after, idempotency_key, created_at)
    select 'l' || substr(id, 2), client_id, 'SALE', amount_xof,
      sum(amount_xof) over (order by id rows between unbounded preceding and current row),
      'sale:' || reference, sold_at
    from shop_sales where client_id = ${clientId} and collected_by = 'PLATFORM'`.execute(db);
  await sql`insert into shop_stock (id, client_id, profile_name, ticket_code, created_at, sale_reference, sold_at)
    select 'k' || substr(id, 2), client_id, '1h', ticket_code, sold_at, reference, sold_at
    from shop_sales where client_id = ${clientId}`.execute(db);
  await db
    .insertInto('shop_stock')
    .values(
      Array.from({ length: 50 }, (_, i) => ({
        id: newId(),
        client_id: clientId,
        profile_name: ['1h', '2h'][i % 2]!,
        ticket_code: `U${i}`,
        created_at: NOW.toISOString(),
        sale_reference: null,
        sold_at: null,
      })),
    )
    .execute();
  await sql`insert into shop_daily_totals (client_id, day, sales_count, gross_xof, platform_xof, merchant_xof, withdrawn_xof)
    select client_id, substr(sold_at, 1, 10), count(*), sum(amount_xof),
      sum(case when collected_by = 'PLATFORM' then amount_xof else 0 end),
      sum(case when collected_by = 'MERCHANT' then amount_xof else 0 end), 0
    from shop_sales where client_id = ${clientId} group by client_id, substr(sold_at, 1, 10)`.execute(db);
  await sql`insert into shop_wallets (client_id, available_xof, pending_xof, sales_count, gross_xof, platform_xof,
      merchant_xof, withdrawn_xof, last_collected_by, payout_provider, payout_dashboard_url, withdrawals_enabled, updated_at)
    select client_id, sum(platform_xof), 0, sum(sales_count), sum(gross_xof), sum(platform_xof), sum(merchant_xof), 0,
      'PLATFORM', null, null, 1, ${NOW.toISOString()}
    from shop_daily_totals where client_id = ${clientId} group by client_id`.execute(db);
  await sql`analyze`.execute(db);
}

/** The plans of every statement `run` sends, each explained with its own parameters. */
async function plansOf(database: DatabaseHandle, run: () => Promise<unknown>): Promise<string[]> {
  const executor = database.db.getExecutor();
  const original = executor.executeQuery.bind(executor);
  const sent: CompiledQuery[] = [];
  executor.executeQuery = ((q: CompiledQuery, id: unknown) => {
    sent.push(q);
    return (original as (q: CompiledQuery, id: unknown) => Promise<unknown>)(q, id);
  }) as typeof executor.executeQuery;
  try {
    await run();
  } finally {
    executor.executeQuery = original;
  }
  const { explainPrefix, planLineColumn } = database.caps;
  const plans: string[] = [];
  for (const q of sent.filter((s) => /\bshop_/.test(s.sql) && /^\s*(select|with)/i.test(s.sql))) {
    const { rows } = await database.db.executeQuery<Record<string, string>>({
      ...q,
      sql: `${explainPrefix} ${q.sql}`,
    });
    plans.push(...rows.map((r) => r[planLineColumn]!).filter((l) => /shop_/.test(l)));
  }
  return plans;
}

async function run(
  name: string,
  database: DatabaseHandle,
  dataDir: string,
  { sales, reps }: ShopBenchOptions,
): Promise<Row> {
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
      clock: 'manual',
    },
  );
  const { ManualClock } = await import('../controller/core/clock.js');
  const clock = new ManualClock(NOW);
  const c = await createController({ config, logger: pino({ level: 'silent' }), database, clock });
  try {
    const s = c.services;
    const client = await s.accounts.register({
      email: `bench-${name}@example.com`,
      password: 'bench-pass-1',
      name: 'Bench',
      kind: 'client',
    });
    const clientId = client.account.id;
    const token = client.token;
    await s.licences.grant(clientId, 'RADIUS_ANNUAL', null);
    await s.profiles.setProfile(clientId, '1h', { price_xof: 200, time_limit_seconds: 3600 });
    await call(c, 'PUT', '/api/v1/clients/store-config', token, {
      display_name: 'Bench',
      store_slug: `bench-${name}`,
    });
    await call(c, 'POST', '/api/v1/clients/store/profiles/sync', token, {
      profiles: ['1h', '2h', '1d', '7d', '30d'].map((p, i) => ({ name: p, price: 200 * (i + 1) })),
    });
    const t0 = process.hrtime.bigint();
    await seed(name, database, clientId, sales);
    const fillS = ms(t0) / 1000;

    const readinessUrl = '/api/v1/clients/store/ticketshop/readiness';
    const metricsUrl = '/api/v1/store/ticketshop/metrics';
    // Warm up, and check the figures against the seeded rows.
    const m = (await call(c, 'GET', metricsUrl, token)).data;
    if (m.sales.total.count !== sales) throw new Error(`metrics count ${m.sales.total.count} != ${sales}`);
    const check = await s.shop.wallet.ledgerCheck(clientId);
    if (check.ledger_sum !== check.available) throw new Error('ledger differs from the balance');
    await call(c, 'GET', readinessUrl, token);

    const floor = await timed(reps, () => call(c, 'GET', '/api/v1/clients/store-config', token));
    const readiness = await timed(reps, () => call(c, 'GET', readinessUrl, token));
    const metrics = await timed(reps, () => call(c, 'GET', metricsUrl, token));
    // The peer: day, week, month and total summed from the million sales on every call.
    const starts = ['2026-11-21', '2026-11-16', '2026-11-01', '0000'];
    const naive = await timed(Math.max(5, Math.floor(reps / 20)), async () => {
      for (const from of starts) {
        await database.db
          .selectFrom('shop_sales')
          .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum('amount_xof').as('gross')])
          .where('client_id', '=', clientId)
          .where('sold_at', '>=', from)
          .executeTakeFirst();
      }
    });
    if (Math.abs(pct(naive, 50)) < 0) throw new Error('unreachable');

    const plans = [
      ...(await plansOf(database, () => s.shop.readiness(clientId))),
      ...(await plansOf(database, () => s.shop.wallet.metrics(clientId))),
    ];
    const scans = plans.filter((p) =>
      database.caps.planShowsSearchKeys
        ? /^SCAN shop_/.test(p.trim())
        : /Seq Scan on shop_(sales|ledger|stock)/.test(p),
    );
    return {
      db: name,
      fill_s: Math.round(fillS * 10) / 10,
      floor_p50: pct(floor, 50),
      readiness_p50: pct(readiness, 50),
      readiness_p99: pct(readiness, 99),
      metrics_p50: pct(metrics, 50),
      metrics_p99: pct(metrics, 99),
      naive_p50: pct(naive, 50),
      scans,
      plans: [...new Set(plans.map((p) => p.trim()))],
    };
  } finally {
    await c.close();
  }
}

/** Seeds, times and prints the shop figures; false when a shop statement scans a whole table. */
export async function benchShop(options: ShopBenchOptions): Promise<boolean> {
  const { sales, reps, pgUrl } = options;
  const loadBefore = load();
  console.log(
    `seeding ${sales.toLocaleString('en')} shop sales per database, ${reps} repetitions per figure…`,
  );
  const rows = await onEachDatabase('shop', pgUrl, (db, handle, dir) => run(db, handle, dir, options));

  const f = (x: number) => x.toFixed(2);
  console.log(
    `\nload average (1, 5, 15 min) on ${cpus().length} cores: ${loadBefore} before, ${load()} after`,
  );
  console.log(
    '\n| db | fill (s) | floor: store-config p50 ms | readiness p50 / p99 ms (× floor) | metrics p50 / p99 ms (× floor) | peer: 4 sums over the sales p50 ms (× metrics) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.db} | ${r.fill_s} | ${f(r.floor_p50)} | ${f(r.readiness_p50)} / ${f(r.readiness_p99)} (${(r.readiness_p50 / r.floor_p50).toFixed(1)}×) | ${f(r.metrics_p50)} / ${f(r.metrics_p99)} (${(r.metrics_p50 / r.floor_p50).toFixed(1)}×) | ${f(r.naive_p50)} (${(r.naive_p50 / r.metrics_p50).toFixed(0)}×) |`,
    );
  }
  for (const r of rows) {
    console.log(`\nplans on ${r.db} (every shop statement of readiness and metrics):`);
    for (const p of r.plans) console.log(`  ${p}`);
    console.log(r.scans.length ? `  FULL SCANS: ${r.scans.join('; ')}` : '  no full scan of a shop table');
  }
  return rows.every((r) => r.scans.length === 0);
}
