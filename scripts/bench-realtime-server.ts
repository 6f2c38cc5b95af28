// A publishing side of `npm run bench:realtime`, forked by scripts/bench-realtime.ts:
//   --kind ours  a real controller (createController; SQLite file or a PostgreSQL URL, system clock,
//                no scheduler) listening on 127.0.0.1; an account token is made for the subscribers;
//   --kind floor a bare `ws` server that sends each payload to every socket (one encoded buffer).
// IPC in: {publish: data} (publishes it; ours on support:presence) → out: {published: seq}.
// Prints nothing; sends {ready: {port, token?}} once listening.
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { WebSocketServer, WebSocket } from 'ws';
import { loadConfig } from '../controller/config.js';
import { createController } from '../controller/controller.js';

const { values: opt } = parseArgs({
  options: {
    kind: { type: 'string', default: 'ours' },
    db: { type: 'string' },
    instance: { type: 'string', default: 'bench-1' },
    'max-seconds': { type: 'string', default: '600' },
  },
});
setTimeout(() => process.exit(1), Number(opt['max-seconds']) * 1000).unref();
process.on('disconnect', () => process.exit(0));
const send = (m: unknown) => process.send?.(m);

if (opt.kind === 'floor') {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  wss.on('listening', () => send({ ready: { port: (wss.address() as AddressInfo).port } }));
  process.on('message', (m: { publish?: unknown }) => {
    if (m.publish === undefined) return;
    const frame = Buffer.from(JSON.stringify(m.publish));
    for (const ws of wss.clients) if (ws.readyState === WebSocket.OPEN) ws.send(frame, { binary: false });
  });
} else {
  const dataDir = mkdtempSync(join(tmpdir(), 'tn-bench-rt-'));
  const config = loadConfig(
    {},
    {
      db: opt.db ?? `sqlite:${join(dataDir, 'bench.db')}`,
      dataDir,
      jwtSecret: 'bench-secret-bench-secret-bench-secret-01',
      apiQuota: 'off',
      authFailureQuota: 'off',
      moneyQuota: 'off',
      logLevel: 'warn',
      scheduler: false,
      port: 0,
      instanceId: opt.instance,
    },
  );
  const controller = await createController({ config, logger: pino({ level: 'warn' }) });
  const { port } = await controller.listen();
  const email = `bench-${opt.instance}-${process.pid}@example.com`;
  const { token } = await controller.services.accounts.register({
    email,
    password: 'bench-passw0rd',
    name: 'Bench',
    kind: 'client',
  });
  send({ ready: { port, token } });
  process.on('message', (m: { publish?: unknown }) => {
    if (m.publish === undefined) return;
    controller.services.realtime.publish('support:presence', m.publish).then(
      () => undefined,
      (err: unknown) => console.error('publish failed', err),
    );
  });
  process.on('SIGTERM', () => {
    controller.close().finally(() => process.exit(0));
  });
}
