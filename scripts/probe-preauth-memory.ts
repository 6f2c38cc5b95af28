// Probe: what unauthenticated sockets on /agent/v1 cost a running controller. Starts a controller
// process (fresh SQLite database), opens SOCKETS sockets that each send one 64 MiB frame before any
// handshake, and prints the controller's peak resident memory (VmHWM) before and after.
//
//   node --import tsx scripts/probe-preauth-memory.ts [--root <checkout>] [--sockets 10] [--mib 64]
//
// `--root` runs another checkout's controller (to compare with an older build). Linux only (/proc).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
  options: {
    root: { type: 'string', default: resolve(import.meta.dirname, '..') },
    sockets: { type: 'string', default: '10' },
    mib: { type: 'string', default: '64' },
  },
});
const root = resolve(opt.root);
const sockets = Number(opt.sockets);
const frameBytes = Number(opt.mib) * 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'tn-probe-'));
const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'controller/main.ts')], {
  cwd: root,
  env: {
    ...process.env,
    PORT: '0',
    TICKETNET_DB: `sqlite:${join(dir, 'probe.db')}`,
    TICKETNET_DATA_DIR: dir,
    TICKETNET_JWT_SECRET: 'probe-secret-probe-secret-probe-secret-0',
    TICKETNET_LOG_LEVEL: 'info',
    TICKETNET_SCHEDULER: 'false',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});

const port = await new Promise<number>((done, fail) => {
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const m = /"port":(\d+).*controller listening/.exec(out);
    if (m) done(Number(m[1]));
  });
  child.once('exit', (code) => fail(new Error(`controller exited (${code}) before listening`)));
});

const memory = () => {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { peakMiB: Math.round(kib('VmHWM') / 1024), rssMiB: Math.round(kib('VmRSS') / 1024) };
};

// One frame header (masked, mask key 0, so the payload goes out as it is) and one shared payload:
// the probe itself holds a single copy whatever the number of sockets.
const payload = Buffer.alloc(frameBytes, 0x20);
const header = Buffer.alloc(14);
header[0] = 0x81;
header[1] = 0x80 | 127;
header.writeBigUInt64BE(BigInt(frameBytes), 2);

interface Outcome {
  closeCode: number | undefined;
  bytesWritten: number;
  ms: number;
}

function oversizedFrame(): Promise<Outcome> {
  return new Promise((done) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let upgraded = false;
    let closeCode: number | undefined;
    socket.on('connect', () =>
      socket.write(
        'GET /agent/v1 HTTP/1.1\r\nHost: probe\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!upgraded) {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        upgraded = received.subarray(0, 12).toString() === 'HTTP/1.1 101';
        received = received.subarray(end + 4);
        if (!upgraded) return socket.destroy();
        // Right after the upgrade, before (or while) the challenge arrives: the oversized frame.
        socket.write(header);
        socket.write(payload);
      }
      // Server frames are unmasked: read each header, note a close frame's code.
      while (received.length >= 2) {
        let length = received[1]! & 0x7f;
        let at = 2;
        if (length === 126) [length, at] = [received.readUInt16BE(2), 4];
        else if (length === 127) [length, at] = [Number(received.readBigUInt64BE(2)), 10];
        if (received.length < at + length) return;
        if ((received[0]! & 0x0f) === 0x8 && length >= 2) closeCode = received.readUInt16BE(at);
        received = received.subarray(at + length);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () =>
      done({ closeCode, bytesWritten: socket.bytesWritten, ms: Math.round(performance.now() - started) }),
    );
  });
}

await new Promise((r) => setTimeout(r, 1000));
const before = memory();
const outcomes = await Promise.all(Array.from({ length: sockets }, () => oversizedFrame()));
await new Promise((r) => setTimeout(r, 1000));
const after = memory();
const live = await fetch(`http://127.0.0.1:${port}/healthz`).then(
  (res) => res.status,
  () => 'unreachable',
);

console.log(`controller: ${root}`);
console.log(`${sockets} sockets × one ${opt.mib} MiB frame before the handshake`);
for (const [i, o] of outcomes.entries()) {
  console.log(
    `  socket ${i + 1}: close code ${o.closeCode ?? 'none'}, ${(o.bytesWritten / 1024 / 1024).toFixed(1)} MiB written, closed after ${o.ms} ms`,
  );
}
console.log(`peak RSS before: ${before.peakMiB} MiB (RSS ${before.rssMiB} MiB)`);
console.log(`peak RSS after:  ${after.peakMiB} MiB (RSS ${after.rssMiB} MiB)`);
console.log(`GET /healthz after: ${live}`);

child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
rmSync(dir, { recursive: true, force: true });
