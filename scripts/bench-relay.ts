// `npm run bench:relay`: the same device pages (2 KB and 1 MB) fetched directly from the device
// and through `/api/v1/clients/topology/access/:deviceId` (controller → agent link → the router's
// dst-nat forward → device), in the same run, at 1 and 16 requests in flight: requests/s, p50/p99
// latency, MB/s, what the relay adds to the direct figures, and the CPU each piece spent per MB.
//
// By default every piece runs in this process over loopback sockets (the controller on SQLite in
// memory, the RouterOS simulator, the real agent runtime, the device and the HTTP client): the
// figures are then the relay's whole cost on one thread. `--split` runs them as they are deployed,
// each in its own process: the controller in this one, the site (simulator, agent, device) in
// another, the client (the browser) in a third, and prints each one's CPU per MB.
// Beside them, the hops floor: the same pages through three bare TCP forwards chained in front of
// the device (where the relay's controller, agent and router forward run), i.e. the relay's four
// connections carrying bytes with nothing else done to them; and the proxy floor: a bare HTTP proxy
// (Node's server and client, kept connections) where the controller runs, in front of the same bare
// agent and router hops, i.e. the least a relay that answers each request on its own costs here.
//
// Each cell warms every path for a second, then measures them in turn, round after round (3 by
// default): the rows sum the rounds, and each throughput ratio is the median of the rounds' ratios,
// so a path measured cold or while the machine was busy does not decide a ratio alone.
//   node --import tsx scripts/bench-relay.ts [--seconds 3] [--rounds 3] [--split]
import { fork } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TEST_DATABASES } from '../test/support/databases.js';
import { eventually } from '../test/integration/hub/hub-fixture.js';
import { freePortBlock } from '../test/support/free-port.js';
import { startLiveStack } from '../test/support/live-site.js';
import { childReply, load as loadAverage, median, pct } from './bench-support.js';
import { load, type Cell, type Run } from './bench-relay-load.js';
import { DEVICE, pipeChain, proxyFloor, startRelaySite } from './bench-relay-site.js';

const { values: opt } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    // rounds per cell, each measuring every path in turn; throughput ratios are their median
    rounds: { type: 'string', default: '3' },
    // for profiling one cell: --pages small --in-flight 1
    pages: { type: 'string', default: 'small,large' },
    'in-flight': { type: 'string', default: '1,16' },
    // for profiling the relay alone: --paths relay (the added figures need direct too)
    paths: { type: 'string', default: 'direct,relay,pipes,proxy' },
    split: { type: 'boolean', default: false },
    // with --split: a CPU profile of the site's and the client's processes, written to this directory
    'cpu-prof': { type: 'string' },
  },
});
const SECONDS = Number(opt.seconds);
const ROUNDS = Math.max(1, Number(opt.rounds));
// Each path runs this long, unmeasured, before a cell's rounds.
const WARM_SECONDS = 1;
const PAGES = opt.pages.split(',') as ('small' | 'large')[];
const IN_FLIGHT = opt['in-flight'].split(',').map(Number);
const PATHS = new Set(opt.paths.split(','));
const SERIAL = '48A98A0BE4C1';
const HERE = dirname(fileURLToPath(import.meta.url));

const fmt = (n: number, d = 2) => n.toFixed(d);
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
// The goals: what the relay may add to the small page's latency, and the large page's share of the
// direct throughput.
const SMALL_P50_MS = 3;
const SMALL_P99_MS = 15;
const LARGE_RATIO = 0.25;
const micros = (c: NodeJS.CpuUsage) => c.user + c.system;

const forkTs = (file: string, args: string[]) =>
  fork(join(HERE, file), args, {
    execArgv: [
      '--import',
      'tsx',
      ...(opt['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', resolve(opt['cpu-prof'])] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });

/** Where the site and the client run, and how their CPU is read. */
interface Pieces {
  devicePort: number;
  load(cell: Cell): Promise<Run>;
  /** CPU of the site's process so far (µs); 0 when the site runs in this process (counted there). */
  siteCpu(): Promise<number>;
  /**
   * Bare TCP forwards where the agent and the router forward run (in the site), the device behind
   * them; answers the first one's port. The floors put their first hop, where the controller runs,
   * in front of it.
   */
  siteHops(): Promise<number>;
  stop(): Promise<void>;
}

async function inThisProcess(controllerUrl: string, enrolCode: string): Promise<Pieces> {
  const site = await startRelaySite({ controllerUrl, enrolCode, serial: SERIAL });
  let chain: { port: number; close(): void } | undefined;
  return {
    devicePort: site.devicePort,
    load,
    siteCpu: async () => 0,
    async siteHops() {
      chain ??= await pipeChain(2, site.devicePort);
      return chain.port;
    },
    async stop() {
      chain?.close();
      await site.stop();
    },
  };
}

async function inTheirProcesses(controllerUrl: string, enrolCode: string): Promise<Pieces> {
  const site = forkTs('bench-relay-site.ts', [
    '--controller',
    controllerUrl,
    '--code',
    enrolCode,
    '--serial',
    SERIAL,
  ]);
  const client = forkTs('bench-relay-load.ts', ['--child']);
  const [{ devicePort }] = await Promise.all([
    childReply<{ devicePort: number }>(site, 'ready'),
    childReply<true>(client, 'ready'),
  ]);
  let hops: Promise<number> | undefined;
  return {
    devicePort,
    siteHops() {
      if (!hops) {
        hops = childReply<number>(site, 'pipes');
        site.send({ pipes: 2 });
      }
      return hops;
    },
    load(cell) {
      client.send({ cell });
      return childReply<Run>(client, 'run');
    },
    async siteCpu() {
      site.send({ cpu: true });
      return micros(await childReply<NodeJS.CpuUsage>(site, 'cpu'));
    },
    async stop() {
      // both leave on their own (a CPU profile is written at a process's exit)
      const exits = [client, site].map((c) => new Promise((r) => c.once('exit', r)));
      client.disconnect();
      site.send({ stop: true });
      await Promise.all(exits);
    },
  };
}

async function main(): Promise<void> {
  const oneProcess = !opt.split;
  const ports = await freePortBlock(10);
  const stack = await startLiveStack(TEST_DATABASES[0]!, {
    config: { equipmentPorts: `${ports}-${ports + 9}` },
  });
  const allocated = await stack.t.request('POST', '/api/v1/clients/allocations', {
    token: stack.client.token,
    body: {},
  });
  const { allocation, enrolment } = allocated.body.data as {
    allocation: { id: string };
    enrolment: { code: string };
  };
  const pieces = await (oneProcess ? inThisProcess : inTheirProcesses)(stack.baseUrl, enrolment.code);
  // The floors' first hop, where the controller runs: a bare forward, or a bare HTTP proxy.
  const floors: { pipes?: { port: number; close(): void }; proxy?: { port: number; close(): void } } = {};
  try {
    // the agent's second link (after its restart) is up and its hello's features are in effect
    await eventually(
      async () => stack.t.controller.services.hub.featuresOf(allocation.id) ?? [],
      (features) => features.length > 0,
      30_000,
    );
    const created = await stack.t.request('POST', '/api/v1/clients/topology/devices', {
      token: stack.client.token,
      body: {
        router_serial: SERIAL,
        name: 'bench',
        device_type: 'AP',
        lan_ip: DEVICE.address,
        service_protocol: 'http',
        service_port: DEVICE.servicePort,
        mac_address: DEVICE.mac,
      },
    });
    if (created.body.data?.status !== 'ACTIVE')
      throw new Error(`device not ACTIVE: ${JSON.stringify(created.body)}`);
    const id = created.body.data.id as string;
    const controllerPort = Number(new URL(stack.baseUrl).port);
    const relayPath = (page: string) => `/api/v1/clients/topology/access/${id}/${page}`;

    const features = stack.t.controller.services.hub.featuresOf(allocation.id) ?? [];
    console.log(
      `bench:relay — ${ROUNDS} rounds of ${SECONDS} s per path and cell, after ${WARM_SECONDS} s of warm-up; ${oneProcess ? 'every piece in one process' : 'controller, site (router, agent, device) and client in three processes'}; direct = the device itself (the floor), relay = through the agent link (features ${features.join(', ')}); load average ${loadAverage()}`,
    );
    console.log('page   in-flight  path    req/s     p50 ms   p99 ms   MB/s');
    const goals: string[] = [];
    for (const page of PAGES) {
      for (const inFlight of IN_FLIGHT) {
        const cell = { inFlight };
        // CPU of every piece for each path: the client's (its own count), the site's, the controller's
        const measure = async (port: number, path: string, seconds: number, token?: string) => {
          const site0 = await pieces.siteCpu();
          const here0 = process.cpuUsage();
          const run = await pieces.load({ ...cell, seconds, port, path, ...(token ? { token } : {}) });
          const here = micros(process.cpuUsage(here0));
          const site = (await pieces.siteCpu()) - site0;
          return oneProcess
            ? { run, all: here, controller: 0, site: 0, client: 0 }
            : { run, all: here + site + micros(run.cpu), controller: here, site, client: micros(run.cpu) };
        };
        type Measured = Awaited<ReturnType<typeof measure>>;
        const targets = {
          direct: async (seconds: number) => measure(pieces.devicePort, `/${page}`, seconds),
          relay: async (seconds: number) =>
            measure(controllerPort, relayPath(page), seconds, stack.client.token),
          pipes: async (seconds: number) => {
            floors.pipes ??= await pipeChain(1, await pieces.siteHops());
            return measure(floors.pipes.port, `/${page}`, seconds);
          },
          proxy: async (seconds: number) => {
            floors.proxy ??= await proxyFloor(await pieces.siteHops());
            return measure(floors.proxy.port, `/${page}`, seconds);
          },
        };
        const names = (['direct', 'relay', 'pipes', 'proxy'] as const).filter((n) => PATHS.has(n));
        // Every path warmed (its code compiled, its connections open), then measured in rounds that
        // alternate the paths: a ratio compares figures taken seconds apart, not a path measured
        // before the machine got busy with one measured after.
        for (const name of names) await targets[name](WARM_SECONDS);
        const rounds: Partial<Record<(typeof names)[number], Measured>>[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          const round: (typeof rounds)[number] = {};
          for (const name of names) round[name] = await targets[name](SECONDS);
          rounds.push(round);
        }
        const merged = (name: (typeof names)[number]): Measured | undefined => {
          const ms = rounds.map((round) => round[name]).filter((m) => m !== undefined);
          if (ms.length === 0) return undefined;
          const sum = (f: (m: Measured) => number) => ms.reduce((a, m) => a + f(m), 0);
          return {
            run: {
              requests: sum((m) => m.run.requests),
              bytes: sum((m) => m.run.bytes),
              latencies: ms.flatMap((m) => m.run.latencies),
              seconds: sum((m) => m.run.seconds),
              cpu: ms[0]!.run.cpu,
            },
            all: sum((m) => m.all),
            controller: sum((m) => m.controller),
            site: sum((m) => m.site),
            client: sum((m) => m.client),
          };
        };
        const direct = merged('direct');
        const relayed = merged('relay');
        const piped = merged('pipes');
        const proxied = merged('proxy');
        const measured = [
          ['direct', direct],
          ['relay', relayed],
          ['pipes', piped],
          ['proxy', proxied],
        ] as const;
        for (const [name, m] of measured) {
          if (!m) continue;
          const r = m.run;
          console.log(
            `${page.padEnd(6)} ${String(inFlight).padStart(9)}  ${name.padEnd(6)} ${fmt(r.requests / r.seconds, 0).padStart(7)} ${fmt(pct(r.latencies, 50)).padStart(9)} ${fmt(pct(r.latencies, 99)).padStart(8)} ${fmt(r.bytes / r.seconds / 1e6).padStart(7)}`,
          );
        }
        const rate = (r: Run) => r.bytes / r.seconds;
        const perMb = (us: number, r: Run) => us / 1000 / (r.bytes / 1e6);
        // CPU per request of each piece, ms (steadier than latency under load)
        const perRequest = (m: Measured) =>
          oneProcess
            ? ''
            : ` [controller ${fmt(m.controller / 1000 / m.run.requests, 3)}, site ${fmt(m.site / 1000 / m.run.requests, 3)}, client ${fmt(m.client / 1000 / m.run.requests, 3)}]`;
        for (const [name, m] of measured) {
          if (!m) continue;
          console.log(
            `${' '.repeat(18)}${name} CPU ${fmt(m.all / 1000 / m.run.requests, 3)} ms/request${perRequest(m)}; load ${loadAverage()}`,
          );
        }
        if (!direct || !relayed || !piped) continue;
        const added = (m: Measured, p: number) => pct(m.run.latencies, p) - pct(direct.run.latencies, p);
        // A throughput ratio per round, and their median: the figure the goal is read against.
        const ratios = (top: 'relay' | 'pipes' | 'proxy', bottom: 'direct' | 'pipes' | 'proxy') =>
          rounds.map((round) => rate(round[top]!.run) / rate(round[bottom]!.run));
        const shown = (xs: number[]) =>
          `${fmt(median(xs), 3)} (rounds ${xs.map((x) => fmt(x, 3)).join(', ')})`;
        // the direct path's own CPU per MB is the floor
        console.log(
          `${' '.repeat(18)}added p50 ${fmt(added(relayed, 50))} ms, p99 ${fmt(added(relayed, 99))} ms; relay/direct throughput ${shown(ratios('relay', 'direct'))}`,
        );
        const pieceMb = oneProcess
          ? ''
          : ` [controller ${fmt(perMb(relayed.controller, relayed.run))}, site ${fmt(perMb(relayed.site, relayed.run))}, client ${fmt(perMb(relayed.client, relayed.run))}]`;
        console.log(
          `${' '.repeat(18)}CPU per MB: direct ${fmt(perMb(direct.all, direct.run))} ms, relay ${fmt(perMb(relayed.all, relayed.run))} ms (${fmt(perMb(relayed.all, relayed.run) / perMb(direct.all, direct.run), 1)}x)${pieceMb}, pipes ${fmt(perMb(piped.all, piped.run))} ms`,
        );
        console.log(
          `${' '.repeat(18)}hops floor (the relay's four connections as bare pipes): pipes/direct throughput ${shown(ratios('pipes', 'direct'))}; relay/pipes ${shown(ratios('relay', 'pipes'))}`,
        );
        if (proxied) {
          console.log(
            `${' '.repeat(18)}proxy floor (a bare HTTP proxy where the controller runs, then the bare hops): added p50 ${fmt(added(proxied, 50))} ms, p99 ${fmt(added(proxied, 99))} ms; proxy/direct throughput ${shown(ratios('proxy', 'direct'))}; relay/proxy ${shown(ratios('relay', 'proxy'))}`,
          );
        }
        // The goals, read for the relay and for the floors: a goal a floor misses in the same run is
        // beyond any relay with those hops (or that HTTP handling) on this machine in that run.
        const cellName = `${page}, ${inFlight} in flight`.padEnd(20);
        if (page === 'small') {
          const latency = (name: string, m: Measured) =>
            `${name} added p50 ${fmt(added(m, 50))} ms ${verdict(added(m, 50) < SMALL_P50_MS)}, p99 ${fmt(added(m, 99))} ms ${verdict(added(m, 99) < SMALL_P99_MS)}`;
          goals.push(
            `${cellName}${[latency('relay', relayed), ...(proxied ? [latency('proxy floor', proxied)] : []), latency('hops floor', piped)].join('; ')}`,
          );
        } else {
          const throughput = (name: string, top: 'relay' | 'pipes' | 'proxy') =>
            `${name} ${fmt(median(ratios(top, 'direct')), 3)} ${verdict(median(ratios(top, 'direct')) >= LARGE_RATIO)}`;
          goals.push(
            `${cellName}${[throughput('relay', 'relay'), ...(proxied ? [throughput('proxy floor', 'proxy')] : []), throughput('hops floor', 'pipes')].join('; ')}`,
          );
        }
      }
    }
    if (goals.length > 0) {
      console.log(
        `\ngoals (small page: added p50 < ${SMALL_P50_MS} ms and p99 < ${SMALL_P99_MS} ms; 1 MB page: throughput >= ${LARGE_RATIO} of direct), for the relay and for the floors measured beside it:`,
      );
      for (const line of goals) console.log(`  ${line}`);
    }
  } finally {
    floors.pipes?.close();
    floors.proxy?.close();
    await pieces.stop();
    await stack.close();
  }
}

await main();
process.exit(0);
