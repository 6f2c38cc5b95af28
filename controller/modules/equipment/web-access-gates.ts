// The router management ports of `web_access`: raw TCP on `{vpn_host}:port`, carried to the router's
// own service by a byte stream of its agent's link (the controller never dials a router). A port is
// never open to the world: it is opened when the authenticated client asks (a grant), admits only
// connections from the address that asked, and closes with its connections once nothing has
// crossed it for the idle time (docs/decisions.md, Client equipment: web access).
//
// Grants live in this instance's memory with their listening sockets: they are sockets, not state
// another instance could serve, and a lost grant costs the client one request.
import { createServer, type Server, type Socket } from 'node:net';
import type { AgentHub } from '../../hub/index.js';
import type { Logger } from '../../logger.js';
import type { ServiceTarget, WebAccessField } from './web-access-rules.js';

export interface OpenedPort {
  field: WebAccessField;
  publicPort: number;
  routerPort: number;
  scheme?: 'http' | 'https' | undefined;
}

export interface GrantView {
  clientId: string;
  allocationId: string;
  source: string;
  host: string;
  ports: OpenedPort[];
}

interface Gate extends OpenedPort {
  server: Server;
}

interface Grant extends Omit<GrantView, 'ports'> {
  gates: Map<WebAccessField, Gate>;
  sockets: Set<Socket>;
  /** Monotonic time of the last byte either way, or of the grant. */
  lastActive: number;
  timer: NodeJS.Timeout | undefined;
  /** Order of creation: the topology shows the latest grant of a router. */
  serial: number;
}

export interface WebAccessGatesOptions {
  hub: Pick<AgentHub, 'openStream'>;
  /** Address the ports listen on (the controller's HTTP host). */
  bindHost: string;
  /** First and last port of the range. */
  ports: readonly [number, number];
  /** A grant with no byte through it for this long closes. */
  idleMs: number;
  logger: Logger;
  /**
   * Closes the device connections the relay keeps idle on this router's link: they hold places of
   * the link's bounded streams, which a management connection must not be refused for.
   */
  releaseIdle?: (allocationId: string) => void;
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one source. */
export const plainAddress = (address: string | undefined): string => (address ?? '').replace(/^::ffff:/i, '');

export class WebAccessGates {
  readonly #grants = new Map<string, Grant>();
  #next = 0;
  #serial = 0;

  constructor(private readonly options: WebAccessGatesOptions) {}

  /**
   * Opens (or keeps and refreshes) the ports of `targets` for `source`; answers what is open, or
   * undefined when the range has no free port left (nothing stays open then).
   */
  async grant(
    key: { clientId: string; allocationId: string; source: string; host: string },
    targets: readonly ServiceTarget[],
  ): Promise<GrantView | undefined> {
    const id = `${key.clientId}|${key.allocationId}|${key.source}`;
    let grant = this.#grants.get(id);
    if (!grant) {
      grant = { ...key, gates: new Map(), sockets: new Set(), lastActive: 0, timer: undefined, serial: 0 };
      this.#grants.set(id, grant);
    }
    grant.host = key.host;
    grant.serial = ++this.#serial;
    grant.lastActive = performance.now();
    const wanted = new Map(targets.map((t) => [t.field, t]));
    for (const [field, gate] of grant.gates) {
      const target = wanted.get(field);
      if (!target || target.routerPort !== gate.routerPort || target.scheme !== gate.scheme) {
        grant.gates.delete(field);
        gate.server.close();
      }
    }
    for (const target of targets) {
      if (grant.gates.has(target.field)) continue;
      const gate = await this.#open(grant, target);
      if (!gate) {
        this.#close(id);
        return undefined;
      }
      grant.gates.set(target.field, gate);
    }
    this.#arm(id, grant);
    return this.#view(grant);
  }

  /** The latest grant of a client's router, if one is open. */
  latest(clientId: string, allocationId: string): GrantView | undefined {
    let best: Grant | undefined;
    for (const g of this.#grants.values()) {
      if (g.clientId === clientId && g.allocationId === allocationId && (!best || g.serial > best.serial))
        best = g;
    }
    return best && this.#view(best);
  }

  /** Closes every port and connection (controller shutdown). */
  close(): void {
    for (const id of [...this.#grants.keys()]) this.#close(id);
  }

  #view(grant: Grant): GrantView {
    const { clientId, allocationId, source, host } = grant;
    const ports = [...grant.gates.values()].map(({ field, publicPort, routerPort, scheme }) => ({
      field,
      publicPort,
      routerPort,
      ...(scheme ? { scheme } : {}),
    }));
    return { clientId, allocationId, source, host, ports };
  }

  // The idle check runs when the idle time could have passed, measured from the last byte.
  #arm(id: string, grant: Grant): void {
    clearTimeout(grant.timer);
    const check = () => {
      const idle = performance.now() - grant.lastActive;
      if (idle >= this.options.idleMs) {
        this.options.logger.info(
          { allocationId: grant.allocationId, source: grant.source },
          'web access ports closed after idle time',
        );
        this.#close(id);
      } else grant.timer = setTimeout(check, this.options.idleMs - idle).unref();
    };
    grant.timer = setTimeout(check, this.options.idleMs).unref();
  }

  #close(id: string): void {
    const grant = this.#grants.get(id);
    if (!grant) return;
    this.#grants.delete(id);
    clearTimeout(grant.timer);
    for (const gate of grant.gates.values()) gate.server.close();
    grant.gates.clear();
    for (const socket of grant.sockets) socket.destroy();
  }

  /** Listens on the next free port of the range (another program's port is skipped). */
  async #open(grant: Grant, target: ServiceTarget): Promise<Gate | undefined> {
    const [first, last] = this.options.ports;
    const size = last - first + 1;
    const ours = new Set(
      [...this.#grants.values()].flatMap((g) => [...g.gates.values()].map((x) => x.publicPort)),
    );
    for (let i = 0; i < size; i++) {
      const port = first + ((this.#next + i) % size);
      if (ours.has(port)) continue;
      const server = createServer((socket) => this.#accept(grant, target.routerPort, socket));
      const listening = await new Promise<boolean>((resolve) => {
        server.once('error', () => resolve(false));
        server.listen(port, this.options.bindHost, () => resolve(true));
      });
      if (!listening) continue;
      server.unref();
      this.#next = (port - first + 1) % size;
      return {
        field: target.field,
        publicPort: port,
        routerPort: target.routerPort,
        scheme: target.scheme,
        server,
      };
    }
    return undefined;
  }

  #accept(grant: Grant, routerPort: number, socket: Socket): void {
    socket.on('error', () => undefined);
    // only the address that asked: any other source is reset before a byte reaches the router
    if (plainAddress(socket.remoteAddress) !== grant.source) {
      this.options.logger.warn(
        { allocationId: grant.allocationId, source: plainAddress(socket.remoteAddress) },
        'web access connection from another address refused',
      );
      return void socket.resetAndDestroy();
    }
    // the closings go out on the link before this opening (one ordered link)
    this.options.releaseIdle?.(grant.allocationId);
    const stream = this.options.hub.openStream(grant.allocationId, routerPort);
    if (!stream) return void socket.destroy();
    grant.sockets.add(socket);
    grant.lastActive = performance.now();
    const touch = () => (grant.lastActive = performance.now());
    socket.setNoDelay(true);
    socket.on('data', touch);
    stream.on('data', touch);
    socket.pipe(stream);
    stream.pipe(socket);
    stream.on('error', () => socket.destroy());
    socket.on('close', () => {
      grant.sockets.delete(socket);
      stream.destroy();
    });
  }
}
