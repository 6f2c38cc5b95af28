// The signed floor of `npm run bench:agents`: the bare ws peer's exchange (a small JSON command, an
// ack) with one Ed25519 signature per message, made and checked with the same primitives as the
// agent link (protocol/ed25519.ts, node:crypto): the server signs each command and checks each
// ack, the client checks each command and signs its ack, and both refuse a sequence number that
// does not grow. Nothing else: no envelope schema, no queue, no database. What it measures is the
// least any link that signs every message can do on this machine, beside the unsigned peer.
// With `--kind mac` it is the version 3 floor instead: the same exchange, each message in a binary
// frame (sequence number, 16-byte HMAC-SHA256 with the key of its direction, JSON body) whose MAC is
// checked before the body is parsed; the keys come from an X25519 exchange and HKDF per connection,
// as the agent link's session keys do (the exchange is the connection's, not the measurement's).
// With `--kind stored` it is the stored floor: the version 3 floor plus the two writes the link
// owes every command, on SQLite as the controller opens it (WAL, synchronous NORMAL): the command
// is inserted before it is sent and its answer written before it is taken as the outcome, each
// write in a group commit of up to 64 writes queued meanwhile (one transaction per turn of the
// event loop). Bare prepared statements, no queue, no schema: the least any link that keeps "stored
// before sent" and "result stored before answered" can do on this machine.
//   node --expose-gc --import tsx scripts/bench-agents-signed-floor.ts --role server [--kind mac]
//   node --import tsx scripts/bench-agents-signed-floor.ts --role clients --url WS --server-key B64
//     [--kind mac] [--local 127.0.0.10] (grows to the count the parent sends over IPC, like the
//     peer's clients.js)
// The server's control API is the peer's: GET /stats[?gc=1], GET /rtt?n=&mode=serial|burst&timeout=.
import {
  createHmac,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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
    /**
     * signed: an Ed25519 signature per message; mac: version 3's MAC per message; stored: the MAC
     * and the command's two writes.
     */
    kind: { type: 'string', default: 'signed' },
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

// --- the version 3 floor: one MAC per message ---

/**
 * This end's keys of one connection, as the link keeps them (one small buffer, no KeyObject): the
 * first 32 bytes MAC what it sends, the next 32 check what it gets.
 */
type MacKeys = Buffer;

function macKeys(own: KeyObject, peerPublic: string, role: 'server' | 'client'): MacKeys {
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(peerPublic, 'base64').toString('base64url') },
    format: 'jwk',
  });
  const shared = diffieHellman({ privateKey: own, publicKey });
  const key = (dir: string) => Buffer.from(hkdfSync('sha256', shared, 'floor', dir, 32));
  const [toServer, toClient] = [key('client->server'), key('server->client')];
  const keys = Buffer.allocUnsafe(64);
  (role === 'server' ? toClient : toServer).copy(keys, 0);
  (role === 'server' ? toServer : toClient).copy(keys, 32);
  return keys;
}

const x25519Public = (key: KeyObject): string =>
  Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url').toString('base64');

function mac(key: Buffer, seq: Buffer, body: Buffer): Buffer {
  return createHmac('sha256', key).update(seq).update(body).digest().subarray(0, 16);
}

/** Frame: 8-byte sequence number, 16-byte MAC, JSON body. */
function sealed(body: { seq: number } & object, keys: MacKeys): Buffer {
  const b = Buffer.from(JSON.stringify(body));
  const seq = Buffer.alloc(8);
  seq.writeUInt32BE(body.seq >>> 0, 4);
  return Buffer.concat([seq, mac(keys.subarray(0, 32), seq, b), b]);
}

/** The body of a frame whose MAC checks (before it is parsed), else null. */
function unsealed(data: unknown, keys: MacKeys): Record<string, unknown> | null {
  const frame = data as Buffer;
  if (frame.length < 24) return null;
  const seq = frame.subarray(0, 8);
  const body = frame.subarray(24);
  if (!timingSafeEqual(mac(keys.subarray(32), seq, body), frame.subarray(8, 24))) return null;
  const parsed = JSON.parse(body.toString()) as Record<string, unknown>;
  return parsed.seq === seq.readUInt32BE(4) ? parsed : null;
}

const STORED = opt.kind === 'stored';
const MAC_KIND = opt.kind === 'mac' || STORED;

// --- the stored floor: two writes per command, group-committed ---

interface Write {
  run: () => void;
  done: () => void;
}

const GROUP = 64;

/** The commands' table and the group commit that writes it (one transaction per event-loop turn). */
function commandStore() {
  const dir = mkdtempSync(join(tmpdir(), 'tn-stored-floor-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const db = new Database(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE commands (id INTEGER PRIMARY KEY, body TEXT NOT NULL, state TEXT NOT NULL,
    sent_at TEXT NOT NULL, output TEXT, finished_at TEXT)`);
  const insert = db.prepare("INSERT INTO commands (id, body, state, sent_at) VALUES (?, ?, 'SENT', ?)");
  const finish = db.prepare(
    "UPDATE commands SET state = 'DONE', output = ?, finished_at = ? WHERE id = ? AND state = 'SENT'",
  );
  const flush = db.transaction((writes: Write[]) => {
    for (const w of writes) w.run();
  });
  // At most GROUP writes a transaction, the controller's own bound: a burst's first commands go
  // out (and their answers come back) while the later ones are still being stored.
  const queue: Write[] = [];
  let scheduled = false;
  const next = () => {
    const group = queue.splice(0, GROUP);
    flush(group);
    for (const w of group) w.done();
    scheduled = queue.length > 0;
    if (scheduled) setImmediate(next);
  };
  const commit = (run: () => void, done: () => void) => {
    queue.push({ run, done });
    if (!scheduled) {
      scheduled = true;
      setImmediate(next);
    }
  };
  return {
    /** Stores the command, then `sent` sends it. */
    stored(id: number, body: string, sent: () => void) {
      commit(() => insert.run(id, body, new Date().toISOString()), sent);
    },
    /** Stores the command's outcome, then `answered` takes it. */
    finished(id: number, output: string, answered: () => void) {
      commit(() => finish.run(output, new Date().toISOString(), id), answered);
    },
  };
}

const store = STORED && opt.role === 'server' ? commandStore() : undefined;

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
    macKeys: MacKeys | null;
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
    const conn: Conn = { ws, idx: -1, key: null, macKeys: null, seqOut: 0, seqIn: 0 };
    ws.on('message', (data) => {
      if (MAC_KIND && !conn.macKeys) {
        // The hello: the client's X25519 key; the answer is ours. Both ends then hold the MAC keys.
        const own = generateKeyPairSync('x25519');
        conn.macKeys = macKeys(own.privateKey, String(data), 'server');
        ws.send(x25519Public(own.publicKey));
        conn.idx = conns.push(conn) - 1;
        return;
      }
      if (!MAC_KIND && !conn.key) {
        // The hello: the client's public key (enrolment and the challenge are not the floor's).
        conn.key = verifyingKeyObject(Buffer.from(String(data), 'base64'));
        conn.idx = conns.push(conn) - 1;
        return;
      }
      const body = MAC_KIND ? unsealed(data, conn.macKeys!) : opened(data, conn.key!);
      if (!body || typeof body.seq !== 'number' || body.seq <= conn.seqIn) return;
      conn.seqIn = body.seq;
      const p = pending.get(body.ack as number);
      if (!p) return;
      pending.delete(body.ack as number);
      const answered = () => p.resolve(Number(process.hrtime.bigint() - p.t0) / 1e6);
      if (store) store.finished(body.ack as number, JSON.stringify(body), answered);
      else answered();
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
      const order = { cmd: 'set-rate', user: 'was98kwz', rate: '2M/2M' };
      const send = () => {
        const body = { id, seq: ++conn.seqOut, ...order };
        conn.ws.send(MAC_KIND ? sealed(body, conn.macKeys!) : signed(body, privateKey));
      };
      if (store) store.stored(id, JSON.stringify(order), send);
      else send();
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
    const ephemeral = MAC_KIND ? generateKeyPairSync('x25519') : undefined;
    let keys: MacKeys | undefined;
    ws.on('open', () => {
      wasOpen = true;
      connecting--;
      open++;
      sockets.add(ws);
      ws.send(ephemeral ? x25519Public(ephemeral.publicKey) : rawPublicKey(publicKey).toString('base64'));
      report();
      fill();
    });
    ws.on('message', (data) => {
      if (ephemeral && !keys) {
        keys = macKeys(ephemeral.privateKey, String(data), 'client');
        return;
      }
      const body = keys ? unsealed(data, keys) : opened(data, serverKey);
      if (!body || typeof body.seq !== 'number' || body.seq <= seqIn) return;
      seqIn = body.seq;
      const ack = { ack: body.id, seq: ++seqOut };
      ws.send(keys ? sealed(ack, keys) : signed(ack, privateKey));
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
