// Tiny HTTP control API for out-of-process tests (the CLI's --control-port):
//   GET    /state/summary         counts per menu, files, faults
//   GET    /state/menu?path=/x/y  records of one menu
//   GET    /faults                current faults
//   PUT    /faults                JSON body replaces the faults
//   PATCH  /faults                JSON body merges into the faults
//   DELETE /faults                clears the faults
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Faults } from './faults.js';
import type { RouterSim } from './router-sim.js';
import { formatId } from './ros-format.js';

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
