// Subscribers of `npm run bench:realtime` (one process; the driver forks several): raw `ws`
// sockets, as the peer kit's clients, speaking just what their target needs:
//   ours   Centrifugo JSON: connect with the token, subscribe to support:presence, answer pings;
//   floor  nothing (the server sends to every socket);
//   nchan  nothing (a websocket subscriber of nchan's channel).
// Each publication's data carries {seq, t} (t: sender's epoch milliseconds, sub-millisecond); the
// process records receipt − t per delivery and counts deliveries per socket and seq.
// IPC in: {open: [{url, count}], kind, token?, split} → out {ready}; {report: true} → out {report: {...}}.
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

const { values: opt } = parseArgs({
  options: {
    local: { type: 'string', default: '127.0.0.1' },
    'max-seconds': { type: 'string', default: '600' },
  },
});
setTimeout(() => process.exit(1), Number(opt['max-seconds']) * 1000).unref();
process.on('disconnect', () => process.exit(0));

const now = () => performance.timeOrigin + performance.now();
const single: number[] = [];
const burst: number[] = [];
/** Publications up to this seq were sent one at a time; the rest in bursts. */
let split = 0;
const seen: Map<number, number>[] = [];
let doubled = 0;
let failed = 0;
let sockets: WebSocket[] = [];

function record(idx: number, data: { seq: number; t: number }) {
  (data.seq <= split ? single : burst).push(now() - data.t);
  const m = seen[idx]!;
  const c = (m.get(data.seq) ?? 0) + 1;
  m.set(data.seq, c);
  if (c > 1) doubled++;
}

function open(url: string, idx: number, kind: string, token: string | undefined): Promise<void> {
  return new Promise((resolve) => {
    seen[idx] = new Map();
    const ws = new WebSocket(url, {
      localAddress: opt.local,
      perMessageDeflate: false,
      handshakeTimeout: 20_000,
    });
    sockets.push(ws);
    // A socket that fails (a handshake timing out on a loaded machine) is counted, not fatal.
    ws.on('error', () => {
      failed++;
      resolve();
    });
    ws.on('open', () => {
      if (kind !== 'ours') return resolve();
      ws.send(
        `${JSON.stringify({ id: 1, connect: { token } })}\n${JSON.stringify({ id: 2, subscribe: { channel: 'support:presence' } })}`,
      );
    });
    ws.on('message', (buf) => {
      const text = buf.toString();
      if (kind !== 'ours') return record(idx, JSON.parse(text));
      for (const line of text.split('\n')) {
        if (line === '{}') {
          ws.send('{}');
          continue;
        }
        const m = JSON.parse(line);
        if (m.id === 2) resolve();
        else if (m.push?.pub) record(idx, m.push.pub.data);
      }
    });
  });
}

process.on(
  'message',
  async (m: {
    open?: { url: string; count: number }[];
    kind?: string;
    token?: string;
    split?: number;
    report?: boolean;
    close?: boolean;
  }) => {
    if (m.open) {
      split = m.split ?? 0;
      let idx = 0;
      for (const target of m.open) {
        const batch: Promise<void>[] = [];
        for (let i = 0; i < target.count; i++) {
          batch.push(open(target.url, idx++, m.kind!, m.token));
          // A bounded ramp: the servers see at most 200 handshakes at once from here.
          if (batch.length >= 200) await Promise.all(batch.splice(0));
        }
        await Promise.all(batch);
      }
      process.send!({ ready: sockets.length - failed });
    } else if (m.report) {
      const perSocket = seen.map((s) => s.size);
      process.send!({ report: { single, burst, doubled, perSocket } });
      single.length = 0;
      burst.length = 0;
      doubled = 0;
      for (const s of seen) s.clear();
    } else if (m.close) {
      for (const ws of sockets) ws.terminate();
      sockets = [];
      setTimeout(() => process.exit(0), 100);
    }
  },
);
