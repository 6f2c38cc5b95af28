// `npm run bench:remote-access`: the remote-access resolve and WireGuard key generation.
// - resolve through the HTTP handler, p50/p99: a new router (slot, keys sealed, channel, VPN peer)
//   and the same router again (UNCHANGED), beside GET /clients/allocations/:id, a plain tenant read
//   through the same stack, as the floor (ratios printed); on SQLite and PostgreSQL;
// - X25519 key pairs: tweetnacl's nacl.box.keyPair (what the module uses) beside node:crypto's
//   generateKeyPairSync('x25519') (OpenSSL), in the same run.
// The {vpn_host} end is a no-op in memory: the figures are the controller's own cost.
// Then the shop part (scripts/bench-shop.ts): readiness and metrics over 1,000,000 shop sales per
// database. `--sales N` seeds fewer to check the bench runs; `--shop-reps N` sets its repetitions.
import { generateKeyPairSync } from 'node:crypto';
import { cpus } from 'node:os';
import { inject } from 'light-my-request';
import { pino } from 'pino';
import nacl from 'tweetnacl';
import { loadConfig } from '../controller/config.js';
import { createController, type Controller } from '../controller/controller.js';
import { type DatabaseHandle } from '../controller/db/database.js';
import type { VpnHost } from '../controller/modules/remote-access/index.js';
import { benchShop } from './bench-shop.js';
import { load, ms, pct, onEachDatabase } from './bench-support.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const REPS = Number(args.get('reps') ?? 500);
const KEYS = Number(args.get('keys') ?? 5000);
const SALES = Number(args.get('sales') ?? 1_000_000);
const SHOP_REPS = Number(args.get('shop-reps') ?? 200);
const PG_URL = args.get('pg') ?? process.env.TICKETNET_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

const noopVpn: VpnHost = {
  endpoints: async () => ({
    host: 'vpn.bench.invalid',
    wireguard: { port: 51820, publicKey: Buffer.alloc(32, 1).toString('base64') },
    sstp: { port: 443 },
  }),
  addWireguardPeer: async () => undefined,
  removeWireguardPeer: async () => undefined,
  addSstpAccount: async () => undefined,
  removeSstpAccount: async () => undefined,
  status: async (protocol) => ({ protocol, connectedAt: null, rxBytes: 0 }),
};

async function call(c: Controller, method: string, url: string, token: string, body?: unknown) {
  const res = await inject(c.handler, {
    method: method as 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, body: JSON.parse(res.payload) };
}

interface Row {
  db: string;
  create: number[];
  again: number[];
  floor: number[];
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
  const c = await createController({
    config,
    logger: pino({ level: 'silent' }),
    database,
    remoteAccess: { vpnHost: noopVpn },
  });
  try {
    const client = await c.services.accounts.register({
      email: `bench-${name}@example.com`,
      password: 'bench-pass-1',
      name: 'Bench',
      kind: 'client',
    });
    const token = client.token;
    const resolve = (serial: string) =>
      call(c, 'POST', '/api/v1/clients/remote-access/resolve', token, {
        routeros_version: '7.19',
        router_serial: serial,
      });
    const row: Row = { db: name, create: [], again: [], floor: [] };
    const ids: string[] = [];
    // Warm-up: the first statements of a connection plan and cache.
    for (let i = 0; i < 20; i++) await resolve(`WARM${i}`);
    for (let i = 0; i < REPS; i++) {
      const t = process.hrtime.bigint();
      const res = await resolve(`BENCH${i}`);
      row.create.push(ms(t));
      if (res.status !== 200) throw new Error(`resolve failed: ${JSON.stringify(res.body)}`);
      ids.push(res.body.data.allocation_id);
    }
    for (let i = 0; i < REPS; i++) {
      let t = process.hrtime.bigint();
      const res = await resolve(`BENCH${i}`);
      row.again.push(ms(t));
      if (res.body.data.active_transport_reason !== 'UNCHANGED') throw new Error('resolve again changed');
      t = process.hrtime.bigint();
      await call(c, 'GET', `/api/v1/clients/allocations/${ids[i]}`, token);
      row.floor.push(ms(t));
    }
    return row;
  } finally {
    await c.close();
  }
}

function keygen(): { nacl: number; node: number } {
  const time = (fn: () => unknown) => {
    for (let i = 0; i < 200; i++) fn();
    const t = process.hrtime.bigint();
    for (let i = 0; i < KEYS; i++) fn();
    return (ms(t) * 1000) / KEYS;
  };
  return {
    nacl: time(() => nacl.box.keyPair()),
    node: time(() => generateKeyPairSync('x25519')),
  };
}

const loadBefore = load();
console.log(`${REPS} resolves of each kind per database, ${KEYS} key pairs per generator…`);
const rows = await onEachDatabase('remote-access', PG_URL, (db, handle, dir) => run(db, handle, dir));
const keys = keygen();

const f = (x: number) => x.toFixed(2);
console.log(`\nload average (1, 5, 15 min) on ${cpus().length} cores: ${loadBefore} before, ${load()} after`);
console.log(
  '\n| db | resolve, new router p50 / p99 ms | resolve again (UNCHANGED) p50 / p99 ms | floor: GET allocation p50 / p99 ms | new / floor (p50) | again / floor (p50) |',
);
console.log('|---|---|---|---|---|---|');
for (const r of rows) {
  const [c50, a50, f50] = [pct(r.create, 50), pct(r.again, 50), pct(r.floor, 50)];
  console.log(
    `| ${r.db} | ${f(c50)} / ${f(pct(r.create, 99))} | ${f(a50)} / ${f(pct(r.again, 99))} | ${f(f50)} / ${f(pct(r.floor, 99))} | ${(c50 / f50).toFixed(1)}× | ${(a50 / f50).toFixed(1)}× |`,
  );
}
console.log('\n| X25519 key pair | µs per pair | ratio |');
console.log('|---|---|---|');
console.log(
  `| tweetnacl nacl.box.keyPair | ${keys.nacl.toFixed(1)} | ${(keys.nacl / keys.node).toFixed(1)}× |`,
);
console.log(`| node:crypto generateKeyPairSync('x25519') | ${keys.node.toFixed(1)} | 1.0× |`);

console.log('\n--- shop ---');
if (!(await benchShop({ sales: SALES, reps: SHOP_REPS, pgUrl: PG_URL }))) process.exitCode = 1;
