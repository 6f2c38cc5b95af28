// `npm run bench:relay`: the same device pages (2 KB and 1 MB) fetched directly from the device
// and through `/api/v1/clients/topology/access/:deviceId` (controller → agent link → the router's
// dst-nat forward → device), in the same run, at 1 and 16 requests in flight. The controller (SQLite
// in memory), the RouterOS simulator, the real agent runtime and the device all run in this process
// over loopback sockets, so the figures are the relay's own cost on this machine: requests/s,
// p50/p99 latency, MB/s, and what the relay adds to the direct figures.
//
//   node --import tsx scripts/bench-relay.ts [--seconds 3]
import { createServer, request, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { TEST_DATABASES } from '../test/support/databases.js';
import { load as loadAverage, pct } from './bench-support.js';
import { startLiveStack } from '../test/support/live-site.js';

const { values: opt } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    // for profiling one cell: --pages small --in-flight 1
    pages: { type: 'string', default: 'small,large' },
    'in-flight': { type: 'string', default: '1,16' },
  },
});
const SECONDS = Number(opt.seconds);
const PAGES = opt.pages.split(',') as ('small' | 'large')[];
const IN_FLIGHT = opt['in-flight'].split(',').map(Number);

const SMALL = Buffer.alloc(2 * 1024, 'a');
// 1 MB of bytes that do not compress to nothing (the link compresses what it can)
const LARGE = Buffer.from(Array.from({ length: 1024 * 1024 }, (_, i) => (i * 7919 + (i >> 9)) & 0xff));

async function device(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const body = req.url === '/large' ? LARGE : SMALL;
    res.setHeader('content-type', 'application/octet-stream');
    res.setHeader('content-length', String(body.length));
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

interface Run {
  requests: number;
  bytes: number;
  latencies: number[];
  seconds: number;
}

function get(port: number, path: string, agent: Agent, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent,
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      },
      (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(n) : reject(new Error(`HTTP ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function load(port: number, path: string, inFlight: number, token?: string): Promise<Run> {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const run: Run = { requests: 0, bytes: 0, latencies: [], seconds: 0 };
  const start = performance.now();
  const until = start + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        // awaited first: `run.bytes += await …` would add to the total read before the wait
        const bytes = await get(port, path, agent, token);
        run.bytes += bytes;
        run.latencies.push(performance.now() - t0);
        run.requests++;
      }
    }),
  );
  run.seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return run;
}

const fmt = (n: number, d = 2) => n.toFixed(d);

async function main(): Promise<void> {
  const stack = await startLiveStack(TEST_DATABASES[0]!, { config: { equipmentPorts: '38000-38009' } });
  const dev = await device();
  try {
    // restarted once enrolled, as `ticketnet-agent run` after `enrol`: its hello names its features
    const site = await stack.addSite({ serial: '48A98A0BE4C1', version: '7.19', hello: true });
    site.sim.lan.addDevice({ address: '192.168.50.20', mac: '24:A4:3C:10:00:20', ports: { 80: dev.port } });
    const created = await stack.t.request('POST', '/api/v1/clients/topology/devices', {
      token: stack.client.token,
      body: {
        router_serial: '48A98A0BE4C1',
        name: 'bench',
        device_type: 'AP',
        lan_ip: '192.168.50.20',
        service_protocol: 'http',
        service_port: 80,
        mac_address: '24:A4:3C:10:00:20',
      },
    });
    if (created.body.data?.status !== 'ACTIVE')
      throw new Error(`device not ACTIVE: ${JSON.stringify(created.body)}`);
    const id = created.body.data.id as string;
    const controllerPort = Number(new URL(stack.baseUrl).port);
    const relayPath = (page: string) => `/api/v1/clients/topology/access/${id}/${page}`;

    const features = stack.t.controller.services.hub.featuresOf(site.allocationId) ?? [];
    console.log(
      `bench:relay — ${SECONDS} s per cell; direct = the device itself (the floor), relay = through the agent link (features ${features.join(', ')}); load average ${loadAverage()}`,
    );
    console.log('page   in-flight  path    req/s     p50 ms   p99 ms   MB/s');
    for (const page of PAGES) {
      for (const inFlight of IN_FLIGHT) {
        const directCpu0 = process.cpuUsage();
        const direct = await load(dev.port, `/${page}`, inFlight);
        const directCpu = process.cpuUsage(directCpu0);
        const cpu0 = process.cpuUsage();
        const relayed = await load(controllerPort, relayPath(page), inFlight, stack.client.token);
        const cpu = process.cpuUsage(cpu0);
        for (const [name, r] of [
          ['direct', direct],
          ['relay', relayed],
        ] as const) {
          console.log(
            `${page.padEnd(6)} ${String(inFlight).padStart(9)}  ${name.padEnd(6)} ${fmt(r.requests / r.seconds, 0).padStart(7)} ${fmt(pct(r.latencies, 50)).padStart(9)} ${fmt(pct(r.latencies, 99)).padStart(8)} ${fmt(r.bytes / r.seconds / 1e6).padStart(7)}`,
          );
        }
        const added50 = pct(relayed.latencies, 50) - pct(direct.latencies, 50);
        const added99 = pct(relayed.latencies, 99) - pct(direct.latencies, 99);
        const ratio = relayed.bytes / relayed.seconds / (direct.bytes / direct.seconds);
        // CPU per relayed request and per MB (every piece runs in this process, the client too):
        // steadier than latency under load; the direct path's own CPU per MB is the floor
        const cpuMs = (cpu.user + cpu.system) / 1000 / relayed.requests;
        const perMb = (c: NodeJS.CpuUsage, r: Run) => (c.user + c.system) / 1000 / (r.bytes / 1e6);
        console.log(
          `${' '.repeat(18)}added p50 ${fmt(added50)} ms, p99 ${fmt(added99)} ms; relay/direct throughput ${fmt(ratio, 3)}; relay CPU ${fmt(cpuMs)} ms/request; load ${loadAverage()}`,
        );
        console.log(
          `${' '.repeat(18)}CPU per MB: direct ${fmt(perMb(directCpu, direct))} ms, relay ${fmt(perMb(cpu, relayed))} ms (${fmt(perMb(cpu, relayed) / perMb(directCpu, direct), 1)}x)`,
        );
      }
    }
  } finally {
    dev.server.close();
    await stack.close();
  }
}

await main();
process.exit(0);
