// Tiny HTTP control API for out-of-process tests (the CLI's --control-port):
//   GET    /state/summary         counts per menu, files, faults
//   GET    /state/menu?path=/x/y  records of one menu
//   GET    /faults                current faults
//   PUT    /faults                JSON body replaces the faults
//   PATCH  /faults                JSON body merges into the faults
//   DELETE /faults                clears the faults
//   POST   /hotspot/login         {user, password, mac?, ip?, server?, loginBy?} → login result
//   POST   /hotspot/traffic       {user, bytesIn?, bytesOut?, packetsIn?, packetsOut?, seconds?}
//   POST   /hotspot/logout        {user, cause?}
//   POST   /hotspot/interim       sends Interim-Updates now → {sent}
//   POST   /script                {source} → {ok, output, error?, line?, column?}
//   GET    /state/seed            what the seed created (reseller fleet truth)
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Faults } from './faults.js';
import type { RouterSim } from './router-sim.js';
import { formatId } from './ros-format.js';

const LoginBody = z.object({
  user: z.string().min(1),
  password: z.string(),
  mac: z.string().optional(),
  ip: z.string().optional(),
  server: z.string().optional(),
  loginBy: z.enum(['http-chap', 'http-pap']).optional(),
});
const count = z.number().int().nonnegative().optional();
const TrafficBody = z.object({
  user: z.string().min(1),
  bytesIn: count,
  bytesOut: count,
  packetsIn: count,
  packetsOut: count,
  seconds: count,
});
const LogoutBody = z.object({
  user: z.string().min(1),
  cause: z
    .enum([
      'User-Request',
      'Lost-Carrier',
      'Idle-Timeout',
      'Session-Timeout',
      'Admin-Reset',
      'NAS-Request',
      'NAS-Reboot',
    ])
    .optional(),
});
const ScriptBody = z.object({ source: z.string() });

export class ControlServer {
  private readonly server: Server;

  constructor(private readonly sim: RouterSim) {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) =>
        send(res, 500, { error: String((err as Error).message ?? err) }),
      );
    });
  }

  listen(port: number, host = '127.0.0.1'): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo | null)?.port ?? 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://control');
    const { sim } = this;
    if (url.pathname === '/state/summary' && req.method === 'GET') return send(res, 200, sim.summary());
    if (url.pathname === '/state/seed' && req.method === 'GET') return send(res, 200, sim.seedReport);
    if (req.method === 'POST' && (url.pathname.startsWith('/hotspot/') || url.pathname === '/script'))
      return this.action(url.pathname, req, res);
    if (url.pathname === '/state/menu' && req.method === 'GET') {
      const table = sim.state.menu(url.searchParams.get('path') ?? '');
      if (!table) return send(res, 404, { error: 'no such menu' });
      return send(
        res,
        200,
        table.list().map((r) => ({ '.id': formatId(r.id), ...r.props })),
      );
    }
    if (url.pathname === '/faults') {
      try {
        if (req.method === 'GET') return send(res, 200, sim.faults.active);
        if (req.method === 'DELETE') {
          sim.faults.clear();
          return send(res, 200, sim.faults.active);
        }
        if (req.method === 'PUT' || req.method === 'PATCH') {
          const body = JSON.parse((await readBody(req)) || '{}') as Faults;
          if (req.method === 'PUT') sim.faults.replace(body);
          else sim.faults.set(body);
          return send(res, 200, sim.faults.active);
        }
      } catch (err) {
        return send(res, 400, { error: String((err as Error).message) });
      }
    }
    send(res, 404, { error: 'not found' });
  }

  /** Hotspot and script actions for out-of-process tests. */
  private async action(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { sim } = this;
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req)) || '{}');
    } catch {
      return send(res, 400, { error: 'body is not JSON' });
    }
    const parse = <T>(schema: z.ZodType<T>): T | undefined => {
      const r = schema.safeParse(body);
      if (r.success) return r.data;
      send(res, 400, {
        error: 'invalid body',
        details: r.error.issues.map((i) => i.path.join('.') || i.message),
      });
      return undefined;
    };
    switch (path) {
      case '/hotspot/login': {
        const b = parse(LoginBody);
        if (b) send(res, 200, await sim.hotspotLogin(b));
        return;
      }
      case '/hotspot/traffic': {
        const b = parse(TrafficBody);
        if (!b) return;
        const { user, ...delta } = b;
        const result = await sim.advanceTraffic(user, delta);
        return send(res, result.found ? 200 : 404, result);
      }
      case '/hotspot/logout': {
        const b = parse(LogoutBody);
        if (!b) return;
        const found = await sim.hotspotLogout(b.user, b.cause);
        return send(res, found ? 200 : 404, { found });
      }
      case '/hotspot/interim':
        return send(res, 200, { sent: await sim.sendInterimUpdates() });
      case '/script': {
        const b = parse(ScriptBody);
        if (b) send(res, 200, await sim.runScript(b.source));
        return;
      }
      default:
        return send(res, 404, { error: 'not found' });
    }
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
