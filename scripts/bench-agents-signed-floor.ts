// The signed floor of `npm run bench:agents`: the bare ws peer's exchange (a small JSON command, an
// ack) with one Ed25519 signature per message, made and checked with the same primitives as the
// agent link (protocol/ed25519.ts, node:crypto): the server signs each command and checks each
// ack, the client checks each command and signs its ack, and both refuse a sequence number that
// does not grow. Nothing else: no envelope schema, no queue, no database. What it measures is the
// least any link that signs every message can do on this machine, beside the unsigned peer.
//   node --expose-gc --import tsx scripts/bench-agents-signed-floor.ts --role server
//   node --import tsx scripts/bench-agents-signed-floor.ts --role clients --url WS --server-key B64
//     [--local 127.0.0.10] (grows to the count the parent sends over IPC, like the peer's clients.js)
// The server's control API is the peer's: GET /stats[?gc=1], GET /rtt?n=&mode=serial|burst&timeout=.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { WebSocket, WebSocketServer } from 'ws';
import { signDetached, verifyDetached, verifyingKeyObject } from '../protocol/ed25519.js';
import { obeyParent, rttFigures } from './bench-agents-support.js';

const { values: opt } = parseArgs({
  options: {
    role: { type: 'string' },
    url: { type: 'string' },
    'server-key': { type: 'string' },
    local: { type: 'string' },
    'max-seconds': { type: 'string', default: '600' },
  },
});

setTimeout(() => process.exit(1), Number(opt['max-seconds']) * 1000).unref();

/** A signed frame: the body as sent and the signature of its bytes. */
interface Frame {
  b: string;
  s: string;
}

function signed(body: object, key: KeyObject): string {
  const b = JSON.stringify(body);
  return JSON.stringify({ b, s: Buffer.from(signDetached(Buffer.from(b), key)).toString('base64') });
}

/** The body of a frame whose signature checks, else null. */
function opened(data: unknown, key: KeyObject): Record<string, unknown> | null {
  const frame = JSON.parse(String(data)) as Frame;
  if (!verifyDetached(Buffer.from(frame.b), Buffer.from(frame.s, 'base64'), key)) return null;
  return JSON.parse(frame.b) as Record<string, unknown>;
}

const rawPublicKey = (key: KeyObject): Buffer =>
  (key.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32);

if (opt.role === 'server') await server();
else if (opt.role === 'clients') clients();
else throw new Error('--role server|clients');

async function server(): Promise<void> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  interface Conn {
    ws: WebSocket;
    idx: number;
    key: KeyObject | null;
    seqOut: number;
    seqIn: number;
  }
  const conns: Conn[] = [];
  const pending = new Map<number, { t0: bigint; resolve: (ms: number) => void }>();
  let nextId = 1;
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    backlog: 2048,
    clientTracking: false,
    perMessageDeflate: false,
  });
  wss.on('connection', (ws) => {
    const conn: Conn = { ws, idx: -1, key: null, seqOut: 0, seqIn: 0 };
    ws.on('message', (data) => {
      if (!conn.key) {
        // The hello: the client's public key (enrolment and the challenge are not the floor's).
        conn.key = verifyingKeyObject(Buffer.from(String(data), 'base64'));
        conn.idx = conns.push(conn) - 1;
        return;
      }
      const body = opened(data, conn.key);
      if (!body || typeof body.seq !== 'number' || body.seq <= conn.seqIn) return;
      conn.seqIn = body.seq;
      const p = pending.get(body.ack as number);
      if (p) {
        pending.delete(body.ack as number);
        p.resolve(Number(process.hrtime.bigint() - p.t0) / 1e6);
      }
    });
    ws.on('close', () => {
      if (conn.idx < 0) return;
      const last = conns.pop()!;
      if (last !== conn) {
        conns[conn.idx] = last;
        last.idx = conn.idx;
      }
    });
    ws.on('error', () => undefined);
  });
  const command = (conn: Conn, timeoutMs: number) =>
    new Promise<number | null>((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(null);
      }, timeoutMs);
      pending.set(id, {
        t0: process.hrtime.bigint(),
        resolve: (ms) => {
          clearTimeout(timer);
          resolve(ms);
        },
      });
      conn.ws.send(
        signed({ id, seq: ++conn.seqOut, cmd: 'set-rate', user: 'was98kwz', rate: '2M/2M' }, privateKey),
      );
    });
  const pick = (n: number) => {
    const idx = Array.from(conns.keys());
    for (let i = 0; i < Math.min(n, idx.length); i++) {
      const j = i + Math.floor(Math.random() * (idx.length - i));
      [idx[i], idx[j]] = [idx[j]!, idx[i]!];
    }
    return idx.slice(0, n).map((i) => conns[i]!);
  };
  const rtt = async (n: number, mode: string, timeoutMs: number) => {
    const targets = pick(n);
    let lat: (number | null)[];
    if (mode === 'burst') lat = await Promise.all(targets.map((c) => command(c, timeoutMs)));
    else {
      lat = [];
      for (const c of targets) lat.push(await command(c, timeoutMs));
    }
    return rttFigures(lat, conns.length, mode);
  };
  const gc = (globalThis as { gc?: () => void }).gc;
  const ctl = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const answer = async () => {
      if (u.pathname === '/stats') {
        if (u.searchParams.get('gc') === '1' && gc) {
          gc();
          gc();
        }
        const m = process.memoryUsage();
        return { conns: conns.length, rss: m.rss, heapUsed: m.heapUsed };
      }
      if (u.pathname === '/rtt')
        return rtt(
          Number(u.searchParams.get('n') ?? 1000),
          u.searchParams.get('mode') ?? 'serial',
          Number(u.searchParams.get('timeout') ?? 5000),
        );
      return null;
    };
    void answer().then((body) => {
      if (body === null) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => wss.once('listening', r));
  await new Promise<void>((r) => ctl.listen(0, '127.0.0.1', r));
  const port = (wss.address() as AddressInfo).port;
  console.log(
    JSON.stringify({
      ready: true,
      pid: process.pid,
      url: `ws://127.0.0.1:${port}/`,
      ctl: `http://127.0.0.1:${(ctl.address() as AddressInfo).port}/`,
      server_key: rawPublicKey(publicKey).toString('base64'),
    }),
  );
  process.on('SIGTERM', () => process.exit(0));
}

function clients(): void {
  const serverKey = verifyingKeyObject(Buffer.from(opt['server-key']!, 'base64'));
  let target = 0;
  let open = 0;
  let failed = 0;
  let connecting = 0;
  let stopping = false;
  const sockets = new Set<WebSocket>();
  let reportTimer: NodeJS.Timeout | null = null;
  const report = () => {
    reportTimer ??= setTimeout(() => {
      reportTimer = null;
      process.send?.({ open, failed, refused: 0 });
    }, 50);
  };
  const connectOne = () => {
    connecting++;
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const ws = new WebSocket(opt.url!, {
      localAddress: opt.local,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    let wasOpen = false;
    let seqIn = 0;
    let seqOut = 0;
    ws.on('open', () => {
      wasOpen = true;
      connecting--;
      open++;
      sockets.add(ws);
      ws.send(rawPublicKey(publicKey).toString('base64'));
      report();
      fill();
    });
    ws.on('message', (data) => {
      const body = opened(data, serverKey);
      if (!body || typeof body.seq !== 'number' || body.seq <= seqIn) return;
      seqIn = body.seq;
      ws.send(signed({ ack: body.id, seq: ++seqOut }, privateKey));
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      if (wasOpen) {
        open--;
        sockets.delete(ws);
      } else {
        connecting--;
        failed++;
      }
      report();
      if (!stopping) setTimeout(fill, 100);
    });
  };
  const fill = () => {
    while (!stopping && open + connecting < target && connecting < 100) connectOne();
  };
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const ws of sockets) ws.terminate();
    setTimeout(() => process.exit(0), 200);
  };
  obeyParent((n) => {
    target = n;
    fill();
    report();
  }, stop);
}
