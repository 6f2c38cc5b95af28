// The router's own management services (`/ip service`) as TCP listeners: `www` answers HTTP with a
// WebFig-like page, `ssh` sends its version banner, `winbox` accepts and waits for the client to
// speak (WinBox's protocol is not modelled), `api` is the simulator's API port itself. As on a
// router, a service listens on the port `/ip service` says and stops when it is disabled; a port
// changed with `set` moves the listener. `www-ssl` and `api-ssl` need a certificate the simulator
// does not hold: they never listen.
//
// Off until `listen()`: a router's real ports (80, 22, 8291) cannot be bound by every simulator of
// a test run at once, so each service first moves to a free port of the loopback host, written
// into `/ip service` as an administrator's `set port=` would, and the agent reads it from there.
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { MenuTable, SimRecord } from './menu-table.js';
import type { RouterState } from './router-state.js';

/** The services that get a listener of their own (the API has the simulator's). */
const LISTENED = ['www', 'ssh', 'winbox'] as const;
type Listened = (typeof LISTENED)[number];

/** RouterOS's SSH server names itself so in its identification string. */
export const SSH_BANNER = 'SSH-2.0-ROSSSH\r\n';

export class SimIpServices {
  readonly #listeners = new Map<Listened, { port: number; server: Server }>();
  readonly #sockets = new Set<Socket>();
  readonly #onChange = () => void this.#sync();
  #listening = false;

  constructor(
    private readonly state: RouterState,
    private readonly host: string,
    private readonly apiPort: () => number,
  ) {}

  get #table(): MenuTable {
    return this.state.table('/ip/service');
  }

  /** Starts the enabled services on free ports (written into `/ip service`) and follows later sets. */
  async listen(): Promise<Record<'www' | 'ssh' | 'winbox' | 'api', number>> {
    if (!this.#listening) {
      this.#listening = true;
      const api = this.#table.findBy('name', 'api');
      if (api) this.#table.update(api, { port: String(this.apiPort()) });
      for (const name of LISTENED) {
        const rec = this.#table.findBy('name', name);
        if (!rec) continue;
        const server = await this.#bind(name, 0);
        if (server) this.#table.update(rec, { port: String((server.address() as AddressInfo).port) });
      }
      this.#table.on('change', this.#onChange);
      await this.#sync();
    }
    const port = (name: string) => Number(this.#table.findBy('name', name)?.props.port ?? 0);
    return { www: port('www'), ssh: port('ssh'), winbox: port('winbox'), api: port('api') };
  }

  async close(): Promise<void> {
    this.#listening = false;
    this.#table.off('change', this.#onChange);
    for (const s of this.#sockets) s.destroy();
    const servers = [...this.#listeners.values()].map((l) => l.server);
    this.#listeners.clear();
    await Promise.all(servers.map((srv) => new Promise((r) => srv.close(r))));
  }

  // A service disabled stops listening, one enabled or moved listens on its (new) port.
  async #sync(): Promise<void> {
    if (!this.#listening) return;
    for (const name of LISTENED) {
      const rec: SimRecord | undefined = this.#table.findBy('name', name);
      const wanted = rec && rec.props.disabled !== 'true' ? Number(rec.props.port) : undefined;
      const current = this.#listeners.get(name);
      if (current && current.port === wanted) continue;
      if (current) {
        this.#listeners.delete(name);
        current.server.close();
      }
      if (wanted) await this.#bind(name, wanted);
    }
  }

  async #bind(name: Listened, port: number): Promise<Server | undefined> {
    const server = createServer((socket) => this.#accept(name, socket));
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, this.host, () => resolve(true));
    });
    // a port taken on this machine by something else cannot be modelled: the service stays silent
    if (!ok) return undefined;
    this.#listeners.get(name)?.server.close();
    this.#listeners.set(name, { port: (server.address() as AddressInfo).port, server });
    return server;
  }

  #accept(name: Listened, socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setNoDelay(true);
    if (name === 'ssh') socket.write(SSH_BANNER);
    else if (name === 'www') webfig.emit('connection', socket);
    // winbox: the client speaks first; the simulator only holds the connection
  }
}

// One HTTP server for every simulator: it only answers, it never listens itself.
const webfig = createHttpServer((req, res) => {
  const body =
    '<!DOCTYPE html><html><head><title>RouterOS router configuration page</title></head>' +
    `<body><h1>WebFig</h1><p>${req.method} ${req.url}</p></body></html>`;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('content-length', String(Buffer.byteLength(body)));
  res.end(body);
});
