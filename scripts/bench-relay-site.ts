// The site of `bench:relay`: a RouterOS simulator with the benchmark's device behind its dst-nat and
// the real agent runtime enrolled with the code it is given, restarted once enrolled so its hello
// names its link features (as `ticketnet-agent run` after `enrol`). Imported by the bench to run in
// its own process, or forked (`--controller <url> --code <enrol code> --serial <serial>`): a site's
// CPU is then its own, as a router's and a LAN device's are, and the process answers `{ready}` and
// then `{cpu}` on request over IPC, and `{pipes}` (the port of a chain of bare forwards in front of
// the device, the hops floor) when asked.
import { mkdtemp, rm } from 'node:fs/promises';
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
} from 'node:http';
import {
  connect,
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
} from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RouterSim } from '../test/routeros-sim/router-sim.js';
import { agentIdentitySaved } from '../test/support/live-site.js';
import { startLoopbackAgent } from '../test/support/loopback-agent.js';

const SITE_PASSWORD = 'bench-pass';
/** The device on the router's LAN. */
export const DEVICE = { address: '192.168.50.20', mac: '24:A4:3C:10:00:20', servicePort: 80 };

/** The device: `/large` 1 MB of bytes that do not compress to nothing (the link compresses what it can), else 2 KB. */
async function device(): Promise<{ server: Server; port: number }> {
  const small = Buffer.alloc(2 * 1024, 'a');
  const large = Buffer.from(Array.from({ length: 1024 * 1024 }, (_, i) => (i * 7919 + (i >> 9)) & 0xff));
  const server = createServer((req, res) => {
    const body = req.url === '/large' ? large : small;
    res.setHeader('content-type', 'application/octet-stream');
    res.setHeader('content-length', String(body.length));
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

export interface RelaySite {
  /** The device's own port (the direct path). */
  devicePort: number;
  stop(): Promise<void>;
}

/**
 * `hops` TCP forwards chained in front of `targetPort`, each piping bytes both ways and nothing
 * else: the floor of a relay with as many hops (no HTTP parse, no framing, no MAC). Answers the
 * first one's port.
 */
export async function pipeChain(hops: number, targetPort: number): Promise<{ port: number; close(): void }> {
  const servers: TcpServer[] = [];
  let port = targetPort;
  for (let i = 0; i < hops; i++) {
    const next = port;
    const server = createTcpServer({ noDelay: true }, (inbound) => {
      const outbound = connect({ port: next, host: '127.0.0.1', noDelay: true });
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    port = (server.address() as AddressInfo).port;
  }
  return { port, close: () => servers.forEach((s) => s.close()) };
}

// Headers of one hop (RFC 9110, 7.6.1) and our bearer: a proxy never passes them on. A set and a
// loop, as the relay filters them, so the floor pays no more for this than the relay does.
const NOT_FORWARDED = new Set([
  'authorization',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function forwarded(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const name in headers) if (!NOT_FORWARDED.has(name)) out[name] = headers[name];
  return out;
}

/**
 * The proxy floor: a bare HTTP proxy in front of `targetPort` (Node's HTTP server, and its HTTP
 * client on kept connections, up to 16 as the relay keeps per device), answering each request on
 * its own as the relay must (it checks every call), with nothing else: no bearer, no database, no
 * link framing or MAC. Placed where the controller runs, in front of the bare agent and router hops,
 * it is the least an HTTP-aware relay costs on this machine. Answers its port.
 */
export async function proxyFloor(targetPort: number): Promise<{ port: number; close(): void }> {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 16 });
  const server = createServer((req, res) => {
    const out = httpRequest(
      {
        host: '127.0.0.1',
        port: targetPort,
        method: req.method,
        path: req.url,
        headers: forwarded(req.headers),
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, forwarded(answer.headers));
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      server.close();
      agent.destroy();
    },
  };
}

export async function startRelaySite(o: {
  controllerUrl: string;
  enrolCode: string;
  serial: string;
}): Promise<RelaySite> {
  const dev = await device();
  const sim = new RouterSim({ serial: o.serial, version: '7.19', password: SITE_PASSWORD });
  await sim.start();
  sim.lan.addDevice({ address: DEVICE.address, mac: DEVICE.mac, ports: { [DEVICE.servicePort]: dev.port } });
  const stateDir = await mkdtemp(join(tmpdir(), 'tn-bench-relay-'));
  const start = () =>
    startLoopbackAgent({
      stateDir,
      controllerUrl: o.controllerUrl,
      enrolCode: o.enrolCode,
      router: { port: sim.port, password: SITE_PASSWORD },
    });
  let agent = await start();
  await agentIdentitySaved(stateDir, 30_000);
  await agent.stop();
  agent = await start();
  return {
    devicePort: dev.port,
    async stop() {
      await agent.stop();
      await sim.stop();
      dev.server.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

// Forked by the bench: the site in a process of its own.
if (process.send && process.argv.includes('--controller')) {
  const { values } = parseArgs({
    options: {
      controller: { type: 'string' },
      code: { type: 'string' },
      serial: { type: 'string' },
    },
  });
  const site = await startRelaySite({
    controllerUrl: values.controller!,
    enrolCode: values.code!,
    serial: values.serial!,
  });
  process.send({ ready: { devicePort: site.devicePort } });
  process.on('message', (m: { cpu?: true; stop?: true; pipes?: number }) => {
    if (m.cpu) process.send!({ cpu: process.cpuUsage() });
    if (m.pipes) void pipeChain(m.pipes, site.devicePort).then(({ port }) => process.send!({ pipes: port }));
    if (m.stop) void site.stop().finally(() => process.exit(0));
  });
  process.on('disconnect', () => process.exit(0));
}
