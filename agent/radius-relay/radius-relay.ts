// The agent's RADIUS relay: the router's hotspot sends its RADIUS to the agent (UDP on the
// agent's LAN or container address), and the agent carries each datagram over its signed link to
// the controller, so RADIUS never crosses the Internet in clear and the controller listens on no
// public UDP port. The agent holds no secret: it moves bytes; the controller verifies them against
// the NAS secret of the allocation the link authenticated.
//
// Request/answer matching is by frame id. Nothing is queued while the link is down: the router
// retries on its own timers (and moves to its next /radius entry), which is what RADIUS expects.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { v7 as uuidv7 } from 'uuid';
import type { MessageBody, RadiusRelayReport } from '../../protocol/index.js';
import type { AgentLogger } from '../logger.js';
import { CoaForwarder, type CoaTarget } from './coa-forwarder.js';
import { allowed, inBlocks, type Ipv4Block } from './ipv4-cidr.js';
import { monotonicMs } from '../../protocol/monotonic-time.js';

export type RadiusFrame = MessageBody<'radius'>;
export type RelayKind = 'auth' | 'acct';

/** The link as the relay sees it. */
export interface RelayTransport {
  /** Signs and sends a frame; false when there is no live link (the frame is not sent). */
  send(body: RadiusFrame): Promise<boolean>;
  /** True while the link is authenticated and open. */
  isUp(): boolean;
}

/** The router's own addresses, the sources the relay takes RADIUS from by default. */
export interface RouterAddresses {
  /** Known without asking the router (the address the agent reaches it at). */
  initial: readonly Ipv4Block[];
  /** Reads the router's addresses (`/ip address`). */
  read(): Promise<readonly Ipv4Block[]>;
}

export interface RadiusRelayOptions {
  host: string;
  /** null: that service is not relayed. 0: any free port (tests). */
  authPort: number | null;
  acctPort: number | null;
  /**
   * Sources allowed to use the relay: an operator's list (empty = any), or the router's own
   * addresses (the agent's default), read again when an unknown source knocks.
   */
  allow: readonly Ipv4Block[] | RouterAddresses;
  /** The relay's address as the router sees it (what the router must send RADIUS to), when known. */
  address?: string | undefined;
  transport: RelayTransport;
  logger: AgentLogger;
  /** Where Disconnect/CoA requests from the controller go (the router's /radius incoming). */
  coa?: CoaTarget | undefined;
  /** How long an answer is awaited before the request is forgotten (default 5 s). */
  timeoutMs?: number;
  /** Requests awaiting an answer at most; more are dropped (default 1024). */
  maxPending?: number;
}

export interface RelayAddresses {
  auth?: AddressInfo;
  acct?: AddressInfo;
}

export interface RelayStats {
  relayed: number;
  answered: number;
  dropped: { linkDown: number; notAllowed: number; full: number; malformed: number; timedOut: number };
}

interface Pending {
  socket: Socket;
  address: string;
  port: number;
  timer: NodeJS.Timeout;
}

// The router's addresses are read again at most this often (an unknown source knocking repeatedly
// must not turn into a router query per packet).
const ROUTER_ADDRESSES_REFRESH_MS = 10_000;

// A RADIUS packet is 20 to 4096 bytes (RFC 2865 §3); the link schema says the same.
const MIN_PACKET = 20;
const MAX_PACKET = 4096;

export class RadiusRelay {
  readonly stats: RelayStats = {
    relayed: 0,
    answered: 0,
    dropped: { linkDown: 0, notAllowed: 0, full: 0, malformed: 0, timedOut: 0 },
  };
  readonly #options: RadiusRelayOptions;
  readonly #timeoutMs: number;
  readonly #maxPending: number;
  readonly #pending = new Map<string, Pending>();
  readonly #sockets: Socket[] = [];
  readonly #coa: CoaForwarder | undefined;
  #stopped = false;
  #addresses: RelayAddresses = {};
  #routerBlocks: readonly Ipv4Block[] = [];
  #routerReadAt = Number.NEGATIVE_INFINITY;
  #routerReading: Promise<void> | undefined;

  constructor(options: RadiusRelayOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    if ('read' in options.allow) this.#routerBlocks = options.allow.initial;
    this.#maxPending = options.maxPending ?? 1024;
    this.#coa = options.coa
      ? new CoaForwarder(options.coa, options.transport, options.logger, {
          timeoutMs: this.#timeoutMs,
          maxPending: this.#maxPending,
        })
      : undefined;
  }

  /** Sends Disconnect and CoA requests to the router's `/radius incoming`; absent without a router target. */
  get coa(): CoaForwarder | undefined {
    return this.#coa;
  }

  /** Requests awaiting the controller's answer. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Binds the UDP sockets; rejects when a port is taken (the agent then runs without relay). */
  async start(): Promise<RelayAddresses> {
    const { host, authPort, acctPort } = this.#options;
    const addresses: RelayAddresses = {};
    try {
      if (authPort !== null) addresses.auth = await this.#bind('auth', host, authPort);
      if (acctPort !== null) addresses.acct = await this.#bind('acct', host, acctPort);
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.#addresses = addresses;
    this.refreshRouterAddresses();
    return addresses;
  }

  /**
   * What the agent reports of its relay (a facts report's `radius_relay`): where the router must
   * send RADIUS and the bound ports; null when the relay does not run or its address is unknown.
   */
  report(): RadiusRelayReport | null {
    const { address } = this.#options;
    if (this.#stopped || !address || (!this.#addresses.auth && !this.#addresses.acct)) return null;
    return {
      address,
      auth_port: this.#addresses.auth?.port ?? null,
      acct_port: this.#addresses.acct?.port ?? null,
    };
  }

  /** The sources allowed by default right now (the router's addresses); empty with an operator's list. */
  get routerAddresses(): readonly Ipv4Block[] {
    return this.#routerBlocks;
  }

  /** Reads the router's addresses again (default allow-list), unless read very recently. Never throws. */
  refreshRouterAddresses(): Promise<void> {
    const { allow, logger } = this.#options;
    if (!('read' in allow) || this.#stopped) return Promise.resolve();
    if (this.#routerReading) return this.#routerReading;
    if (monotonicMs() - this.#routerReadAt < ROUTER_ADDRESSES_REFRESH_MS) return Promise.resolve();
    this.#routerReadAt = monotonicMs();
    this.#routerReading = allow
      .read()
      .then(
        (blocks) => {
          const seen = new Set<string>();
          this.#routerBlocks = [...allow.initial, ...blocks].filter((b) => {
            const key = `${b.network}/${b.mask}`;
            return !seen.has(key) && (seen.add(key), true);
          });
        },
        (err: unknown) =>
          logger.debug(
            { err: (err as Error).message },
            "router's addresses not read; the relay keeps the last known",
          ),
      )
      .finally(() => (this.#routerReading = undefined));
    return this.#routerReading;
  }

  #allowed(address: string): boolean {
    const { allow } = this.#options;
    if (!('read' in allow)) return allowed(allow, address);
    if (inBlocks(this.#routerBlocks, address)) return true;
    // An address the router got since it was last read (a new interface, DHCP): look again.
    void this.refreshRouterAddresses();
    return false;
  }

  /** The bound ports, once started. */
  get addresses(): RelayAddresses {
    return this.#addresses;
  }

  /**
   * A `radius` frame from the controller: the answer to a relayed request (matched by id), or a
   * Disconnect/CoA request for the router (`peer: 'coa'`). Never throws.
   */
  receive(body: RadiusFrame): void {
    if (body.peer === 'coa') {
      this.#coa?.forward(body);
      if (!this.#coa) this.#options.logger.debug({ id: body.id }, 'radius coa ignored: no router target');
      return;
    }
    const pending = this.#pending.get(body.id);
    if (!pending) {
      // Answered after the timeout: the router has retransmitted (and got its answer) or given up.
      this.#options.logger.debug({ id: body.id }, 'radius answer for no pending request');
      return;
    }
    this.#forget(body.id, pending);
    this.stats.answered += 1;
    pending.socket.send(Buffer.from(body.packet, 'base64'), pending.port, pending.address, (err) => {
      if (err) this.#options.logger.debug({ err: err.message }, 'radius answer not sent to the router');
    });
  }

  /** Closes the sockets and forgets every pending request. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const [id, pending] of this.#pending) this.#forget(id, pending);
    this.#coa?.stop();
    const sockets = this.#sockets.splice(0);
    await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  async #bind(kind: RelayKind, host: string, port: number): Promise<AddressInfo> {
    const socket = createSocket({ type: 'udp4' });
    this.#sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    socket.on('error', (err) =>
      this.#options.logger.warn({ err: err.message, kind }, 'radius relay socket error'),
    );
    socket.on('message', (msg, rinfo) => this.#onDatagram(kind, socket, msg, rinfo));
    return socket.address();
  }

  #onDatagram(kind: RelayKind, socket: Socket, msg: Buffer, rinfo: RemoteInfo): void {
    const { logger, transport } = this.#options;
    if (this.#stopped) return;
    if (!this.#allowed(rinfo.address)) {
      this.stats.dropped.notAllowed += 1;
      logger.debug({ source: rinfo.address, kind }, 'radius packet from a source not allowed');
      return;
    }
    if (msg.length < MIN_PACKET || msg.length > MAX_PACKET) {
      this.stats.dropped.malformed += 1;
      return;
    }
    if (!transport.isUp()) {
      this.stats.dropped.linkDown += 1;
      logger.debug({ kind }, 'radius packet dropped: link down');
      return;
    }
    if (this.#pending.size >= this.#maxPending) {
      this.stats.dropped.full += 1;
      logger.debug({ kind }, 'radius packet dropped: too many requests awaiting an answer');
      return;
    }
    const id = uuidv7();
    const timer = setTimeout(() => {
      const pending = this.#pending.get(id);
      if (!pending) return;
      this.#forget(id, pending);
      this.stats.dropped.timedOut += 1;
    }, this.#timeoutMs);
    timer.unref();
    this.#pending.set(id, { socket, address: rinfo.address, port: rinfo.port, timer });
    const frame: RadiusFrame = {
      id,
      packet: msg.toString('base64'),
      peer: `${kind}:${rinfo.address}:${rinfo.port}`,
    };
    transport.send(frame).then(
      (sent) => {
        if (sent) {
          this.stats.relayed += 1;
          return;
        }
        // The link went down between the check and the send.
        const pending = this.#pending.get(id);
        if (pending) this.#forget(id, pending);
        this.stats.dropped.linkDown += 1;
      },
      (err: unknown) => {
        const pending = this.#pending.get(id);
        if (pending) this.#forget(id, pending);
        this.stats.dropped.linkDown += 1;
        logger.debug({ err: (err as Error).message }, 'radius frame not sent');
      },
    );
  }

  #forget(id: string, pending: Pending): void {
    clearTimeout(pending.timer);
    this.#pending.delete(id);
  }
}
