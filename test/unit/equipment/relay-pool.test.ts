// The relay's kept connections to devices, with a hub whose "streams" are plain TCP connections to
// a local device (what a stream of the link is to the HTTP client): which requests share a
// connection, when one closes, and what the relay does when a kept one turns out closed.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { AppError } from '../../../controller/core/app-error.js';
import { errorMiddleware } from '../../../controller/http/error-middleware.js';
import { StreamOpenError, type RelayStream } from '../../../controller/hub/index.js';
import { RelayPool, type RelayTarget } from '../../../controller/modules/equipment/relay-pool.js';
import { relayMiddleware } from '../../../controller/modules/equipment/relay.js';
import type { EquipmentService } from '../../../controller/modules/equipment/service.js';

const DEVICE_A = '0b7e6f4e-6a57-4a53-9a43-7d2f1b7e0a01';
const DEVICE_B = '0b7e6f4e-6a57-4a53-9a43-7d2f1b7e0a02';
const DEVICE_C = '0b7e6f4e-6a57-4a53-9a43-7d2f1b7e0a03';

const listen = async <T extends Server | ReturnType<typeof createTcpServer>>(server: T) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
};

/**
 * A hub whose streams are TCP connections to `port`; `null` plays a link that is down. Past
 * `limit` streams open at once, the agent refuses the next (as its MAX_STREAMS).
 */
function fakeHub(port: number | null, limit = Infinity) {
  const live = new Set<Socket>();
  const hub = {
    opened: 0,
    refused: 0,
    openStream: () => {
      if (port === null) return undefined;
      // a stream closed by the relay is gone for the agent at once (its close goes first on the link)
      if ([...live].filter((s) => !s.destroyed).length >= limit) {
        hub.refused++;
        const stream = Object.assign(new PassThrough(), { setTimeout: () => stream });
        process.nextTick(() => stream.destroy(new StreamOpenError('refused', 'too many streams')));
        return stream as unknown as RelayStream;
      }
      hub.opened++;
      const socket = connect(port, '127.0.0.1');
      live.add(socket);
      socket.on('close', () => live.delete(socket));
      return socket as unknown as RelayStream;
    },
  };
  return hub;
}

const target = (port = 80): RelayTarget => ({
  allocationId: 'alloc-1',
  dstnatPort: 38000,
  lanIp: '192.168.50.20',
  servicePort: port,
  protocol: 'http',
});

function get(pool: RelayPool, tenant: string, device: string, path = '/', to = target()): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ ...pool.requestOptions(tenant, device, to), path }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The relay middleware over `pool`, on a port of its own; `call` requests a device's page through it. */
async function relayApp(hub: ReturnType<typeof fakeHub>) {
  const pool = new RelayPool({ hub, idleMs: 5000, maxIdlePerDevice: 6 });
  const equipment = { relayTarget: async () => target() } as unknown as EquipmentService;
  const app = new Koa();
  app.use(errorMiddleware(pino({ level: 'silent' })));
  app.use(
    relayMiddleware({
      equipment,
      pool,
      authenticate: async () =>
        ({ kind: 'client', tenantId: 'tenant-1' }) as Awaited<
          ReturnType<Parameters<typeof relayMiddleware>[0]['authenticate']>
        >,
      timeoutMs: 5000,
    }),
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const call = (method: string, body?: string, device = DEVICE_A) =>
    fetch(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/clients/topology/access/${device}/x`,
      {
        method,
        headers: { authorization: 'Bearer t' },
        ...(body !== undefined ? { body } : {}),
      },
    );
  return { hub, pool, server, call };
}

async function eventually(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).to.equal(true);
}

describe('relay pool: connections kept per device and tenant', () => {
  let device: Server;
  let port: number;
  const sockets: Socket[] = [];

  before(async () => {
    device = createHttpServer((req, res) => res.end(`${req.url} on ${req.socket.remotePort}`));
    device.on('connection', (s: Socket) => sockets.push(s));
    port = await listen(device);
  });
  after(() => device.close());

  it("reuses a device's connection for its next request", async () => {
    const hub = fakeHub(port);
    const pool = new RelayPool({ hub, idleMs: 5000, maxIdlePerDevice: 6 });
    const first = await get(pool, 'tenant-1', DEVICE_A, '/a');
    const second = await get(pool, 'tenant-1', DEVICE_A, '/b');
    expect(hub.opened).to.equal(1);
    expect(second.split(' on ')[1]).to.equal(first.split(' on ')[1]);
    pool.destroy();
  });

  it('never lends a connection to another device or another tenant', async () => {
    const hub = fakeHub(port);
    const pool = new RelayPool({ hub, idleMs: 5000, maxIdlePerDevice: 6 });
    const a1 = await get(pool, 'tenant-1', DEVICE_A);
    const b1 = await get(pool, 'tenant-1', DEVICE_B);
    const a2 = await get(pool, 'tenant-2', DEVICE_A);
    expect(hub.opened).to.equal(3);
    expect(new Set([a1, b1, a2].map((x) => x.split(' on ')[1])).size).to.equal(3);
    // each kept its own: a second round opens nothing
    expect(await get(pool, 'tenant-1', DEVICE_A)).to.equal(a1);
    expect(await get(pool, 'tenant-2', DEVICE_A)).to.equal(a2);
    expect(hub.opened).to.equal(3);
    pool.destroy();
  });

  it('closes a kept connection once idle (the device sees it close)', async () => {
    const hub = fakeHub(port);
    const pool = new RelayPool({ hub, idleMs: 50, maxIdlePerDevice: 6 });
    const before = sockets.length;
    await get(pool, 'tenant-1', DEVICE_A);
    const socket = sockets[before]!;
    await eventually(() => socket.destroyed);
    expect(await get(pool, 'tenant-1', DEVICE_A)).to.match(/^\/ on /);
    expect(hub.opened).to.equal(2);
    pool.destroy();
  });

  it('keeps at most the idle connections asked per device', async () => {
    const hub = fakeHub(port);
    const pool = new RelayPool({ hub, idleMs: 5000, maxIdlePerDevice: 2 });
    await Promise.all(Array.from({ length: 5 }, () => get(pool, 'tenant-1', DEVICE_A)));
    expect(hub.opened).to.equal(5);
    await eventually(() => Object.values(pool.freeSockets).flat().length === 2);
    pool.destroy();
  });

  it('an https device: TLS over the kept stream, reused, then closed with the stream under it', async function () {
    // a self-signed certificate, as embedded web servers have (made here: no key in the repository)
    const dir = mkdtempSync(join(tmpdir(), 'tn-relay-tls-'));
    let tls: ReturnType<typeof createHttpsServer>;
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=device',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      tls = createHttpsServer(
        { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
        (req, res) => res.end(`tls ${req.url} on ${req.socket.remotePort}`),
      );
    } catch {
      rmSync(dir, { recursive: true, force: true });
      return this.skip();
    }
    rmSync(dir, { recursive: true, force: true });
    const tlsPort = await listen(tls);
    const streams: Socket[] = [];
    const hub = {
      openStream: () => {
        const socket = connect(tlsPort, '127.0.0.1');
        streams.push(socket);
        return socket as unknown as RelayStream;
      },
    };
    const pool = new RelayPool({ hub, idleMs: 50, maxIdlePerDevice: 6 });
    const https = { ...target(443), protocol: 'https' as const };
    try {
      const a = await get(pool, 'tenant-1', DEVICE_A, '/a', https);
      const b = await get(pool, 'tenant-1', DEVICE_A, '/b', https);
      expect(a).to.match(/^tls \/a on /);
      expect(b.split(' on ')[1]).to.equal(a.split(' on ')[1]);
      expect(streams).to.have.length(1);
      await eventually(() => streams[0]!.destroyed);
    } finally {
      pool.destroy();
      tls.close();
    }
  });

  it('a link that is down is EQUIPMENT_LINK_DOWN', async () => {
    const pool = new RelayPool({ hub: fakeHub(null), idleMs: 5000, maxIdlePerDevice: 6 });
    const err = await get(pool, 'tenant-1', DEVICE_A).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(AppError);
    expect((err as AppError).code).to.equal('EQUIPMENT_LINK_DOWN');
  });
});

describe('relay: a kept connection the device closed', () => {
  // A device that answers the first request of its first connection with keep-alive, then closes
  // that connection on the next request without a word; later connections answer every request.
  let device: ReturnType<typeof createTcpServer>;
  let port: number;
  let connections = 0;
  const seen: string[] = [];

  before(async () => {
    device = createTcpServer((socket) => {
      const n = ++connections;
      let requests = 0;
      let buffered = '';
      socket.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('latin1');
        let end: number;
        while ((end = buffered.indexOf('\r\n\r\n')) >= 0) {
          const head = buffered.slice(0, end);
          const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          if (buffered.length < end + 4 + length) return;
          buffered = buffered.slice(end + 4 + length);
          requests++;
          seen.push(`${n}:${head.split(' ')[0]}`);
          if (n === 1 && requests === 2) return void socket.destroy();
          const body = `conn ${n}`;
          socket.write(
            `HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\nkeep-alive: timeout=5\r\n\r\n${body}`,
          );
        }
      });
      socket.on('error', () => undefined);
    });
    port = await listen(device);
  });
  after(() => device.close());
  beforeEach(() => {
    connections = 0;
    seen.length = 0;
  });

  it('a GET goes again on a new connection', async () => {
    const { hub, pool, server, call } = await relayApp(fakeHub(port));
    try {
      expect(await (await call('GET')).text()).to.equal('conn 1');
      const again = await call('GET');
      expect(again.status).to.equal(200);
      expect(await again.text()).to.equal('conn 2');
      expect(seen).to.deep.equal(['1:GET', '1:GET', '2:GET']);
      expect(hub.opened).to.equal(2);
    } finally {
      pool.destroy();
      server.close();
    }
  });

  it('a POST with a body is not sent twice: 502', async () => {
    const { pool, server, call } = await relayApp(fakeHub(port));
    try {
      expect((await call('GET')).status).to.equal(200);
      const posted = await call('POST', 'a=1');
      expect(posted.status).to.equal(502);
      expect(((await posted.json()) as { error: { code: string } }).error.code).to.equal(
        'DEVICE_RELAY_FAILED',
      );
      expect(seen).to.deep.equal(['1:GET', '1:POST']);
    } finally {
      pool.destroy();
      server.close();
    }
  });
});

describe('relay: the agent out of streams while kept ones idle', () => {
  let device: Server;
  let port: number;

  before(async () => {
    device = createHttpServer((req, res) => res.end(`answer ${req.url}`));
    port = await listen(device);
  });
  after(() => device.close());

  it("closes the router's idle connections and opens the stream again", async () => {
    const { hub, pool, server, call } = await relayApp(fakeHub(port, 2));
    try {
      expect((await call('GET', undefined, DEVICE_A)).status).to.equal(200);
      expect((await call('GET', undefined, DEVICE_B)).status).to.equal(200);
      // two idle kept connections hold both places: the third device's stream is refused once
      const third = await call('GET', undefined, DEVICE_C);
      expect(third.status).to.equal(200);
      expect(await third.text()).to.equal('answer /x');
      expect(hub.refused).to.equal(1);
      expect(hub.opened).to.equal(3);
    } finally {
      pool.destroy();
      server.close();
    }
  });
});

describe('relay: a stream the agent could not open', () => {
  /** A hub whose every stream fails to open with `reason`, as the agent reports it. */
  const failingHub = (reason: 'timeout' | 'refused' | 'error') => {
    const hub = {
      opened: 0,
      refused: 0,
      openStream: () => {
        const stream = Object.assign(new PassThrough(), { setTimeout: () => stream });
        process.nextTick(() => stream.destroy(new StreamOpenError(reason, `stream ${reason}`)));
        return stream as unknown as RelayStream;
      },
    };
    return hub as ReturnType<typeof fakeHub>;
  };
  // A silent device behind the router's forward never completes the connection: the agent's
  // connect times out, and that is the device not answering, not a relay fault.
  const cases: [reason: 'timeout' | 'refused' | 'error', status: number, code: string][] = [
    ['timeout', 504, 'DEVICE_NOT_RESPONDING'],
    ['refused', 502, 'DEVICE_RELAY_FAILED'],
    ['error', 502, 'DEVICE_RELAY_FAILED'],
  ];
  for (const [reason, status, code] of cases) {
    it(`${reason}: ${status} ${code}`, async () => {
      const { pool, server, call } = await relayApp(failingHub(reason));
      try {
        const res = await call('GET');
        expect(res.status).to.equal(status);
        expect(((await res.json()) as { error: { code: string } }).error.code).to.equal(code);
      } finally {
        pool.destroy();
        server.close();
      }
    });
  }
});
