// Subscribers of `npm run bench:realtime` (one process; the driver forks several): raw `ws`
// sockets, as the peer kit's clients, speaking just what their target needs:
//   ours   Centrifugo JSON: connect with the token, subscribe to support:presence, answer pings;
//   floor  nothing (the server sends to every socket);
//   nchan  nothing (a websocket subscriber of nchan's channel).
// Every target's sockets stay open for the whole run, so the driver can interleave publications
// across targets (a loaded machine then slows them all alike).
// Each publication's data carries {seq, t} (t: sender's epoch milliseconds, sub-millisecond); the
// process records receipt − t per delivery in a log histogram, counts deliveries per socket and
// seq and the frames that carried burst publications, and tells the driver when all its sockets
// of a target have a seq.
// IPC in:  {open: Target[], split} → out {ready: {opened[], failed[], seconds[]}};
//          {report: true} → out {report: TargetReport[]}; {close: true}.
// IPC out: {got: [target, seq]} once every socket of this process on that target has seq.
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

const { values: opt } = parseArgs({
  options: {
    local: { type: 'string', default: '127.0.0.1' },
    /** Handshakes in flight at once from this process (the peer kit's clients use 100). */
    ramp: { type: 'string', default: '50' },
    /** Attempts per socket before it counts as failed. */
    attempts: { type: 'string', default: '5' },
    'max-seconds': { type: 'string', default: '1200' },
  },
});
setTimeout(() => process.exit(1), Number(opt['max-seconds']) * 1000).unref();
process.on('disconnect', () => process.exit(0));

interface Target {
  kind: 'ours' | 'floor' | 'nchan';
  urls: { url: string; count: number }[];
  token?: string;
  /** Highest seq the driver will publish on this target. */
  total: number;
}

/** Latencies as counts per bucket of 1 % width: merged by the driver, percentiles within 1 %. */
const BUCKET = Math.log(1.01);
const bucketOf = (ms: number) => Math.max(0, Math.floor(Math.log(Math.max(ms, 0.001) * 1000) / BUCKET));

class TargetState {
  readonly sockets: WebSocket[] = [];
  /** One byte per socket and seq: deliveries seen. */
  seen: Uint8Array[] = [];
  counts: Int32Array;
  single = new Map<number, number>();
  burst = new Map<number, number>();
  doubled = 0;
  delivered = 0;
  /** Frames that carried publications of the bursts (a burst in one frame counts one). */
  burstFrames = 0;
  opened = 0;
  failed = 0;
  constructor(
    readonly index: number,
    readonly spec: Target,
  ) {
    this.counts = new Int32Array(spec.total + 1);
  }
}

const now = () => performance.timeOrigin + performance.now();
let split = 0;
let targets: TargetState[] = [];

function record(t: TargetState, sock: number, data: { seq: number; t: number }): void {
  const lat = now() - data.t;
  const seen = t.seen[sock]!;
  if (seen[data.seq]! > 0) {
    t.doubled++;
    return;
  }
  seen[data.seq] = 1;
  t.delivered++;
  const hist = data.seq <= split ? t.single : t.burst;
  const b = bucketOf(lat);
  hist.set(b, (hist.get(b) ?? 0) + 1);
  if (++t.counts[data.seq]! === t.opened) process.send!({ got: [t.index, data.seq] });
}

/** Opens one socket (retrying a failed handshake); resolves true once it receives publications. */
function open(t: TargetState, url: string, sock: number, attempt = 1): Promise<boolean> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, {
      localAddress: opt.local,
      perMessageDeflate: false,
      handshakeTimeout: 30_000,
    });
    let ready = false;
    const fail = () => {
      if (ready) return;
      ready = true;
      ws.terminate();
      if (attempt >= Number(opt.attempts)) return resolve(false);
      setTimeout(() => open(t, url, sock, attempt + 1).then(resolve), 200 * attempt);
    };
    ws.on('error', fail);
    ws.on('close', fail);
    ws.on('open', () => {
      if (t.spec.kind !== 'ours') {
        ready = true;
        t.sockets[sock] = ws;
        return resolve(true);
      }
      ws.send(
        `${JSON.stringify({ id: 1, connect: { token: t.spec.token } })}\n${JSON.stringify({ id: 2, subscribe: { channel: 'support:presence' } })}`,
      );
    });
    ws.on('message', (buf) => {
      const text = buf.toString();
      if (t.spec.kind !== 'ours') {
        const data = JSON.parse(text);
        if (data.seq > split) t.burstFrames++;
        return record(t, sock, data);
      }
      let burst = false;
      for (const line of text.split('\n')) {
        if (line === '{}') {
          ws.send('{}');
          continue;
        }
        const m = JSON.parse(line);
        if (m.id === 2 && !m.error) {
          ready = true;
          t.sockets[sock] = ws;
          resolve(true);
        } else if (m.error) fail();
        else if (m.push?.pub) {
          if (m.push.pub.data.seq > split) burst = true;
          record(t, sock, m.push.pub.data);
        }
      }
      if (burst) t.burstFrames++;
    });
  });
}

async function openAll(t: TargetState): Promise<void> {
  let sock = 0;
  const jobs: { url: string; sock: number }[] = [];
  for (const { url, count } of t.spec.urls) for (let i = 0; i < count; i++) jobs.push({ url, sock: sock++ });
  t.seen = Array.from({ length: sock }, () => new Uint8Array(t.spec.total + 1));
  // A bounded ramp: at most `ramp` handshakes in flight from this process, as the peer kit paces.
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const j = jobs[next++]!;
      if (await open(t, j.url, j.sock)) t.opened++;
      else t.failed++;
    }
  };
  await Promise.all(Array.from({ length: Number(opt.ramp) }, worker));
}

process.on('message', async (m: { open?: Target[]; split?: number; report?: boolean; close?: boolean }) => {
  if (m.open) {
    split = m.split ?? 0;
    targets = m.open.map((spec, i) => new TargetState(i, spec));
    const seconds: number[] = [];
    for (const t of targets) {
      const t0 = performance.now();
      await openAll(t);
      seconds.push((performance.now() - t0) / 1000);
    }
    process.send!({
      ready: { opened: targets.map((t) => t.opened), failed: targets.map((t) => t.failed), seconds },
    });
  } else if (m.report) {
    process.send!({
      report: targets.map((t) => ({
        single: [...t.single],
        burst: [...t.burst],
        doubled: t.doubled,
        delivered: t.delivered,
        burstFrames: t.burstFrames,
        opened: t.opened,
        failed: t.failed,
      })),
    });
  } else if (m.close) {
    for (const t of targets) for (const ws of t.sockets) ws?.terminate();
    setTimeout(() => process.exit(0), 100);
  }
});
