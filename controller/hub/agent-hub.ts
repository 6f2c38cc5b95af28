// The agent hub at /agent/v1 on the HTTP port. It holds the sockets of the agents connected to THIS
// instance; everything another instance needs (link state, last seen, the command queue) is in the
// database. Commands reach the holder through CommandSignals (in-process) and, across instances,
// through a periodic sweep of the QUEUED commands of the links this instance holds.
//
// Sized for 10k agents per instance: the hub's three periodic jobs (heartbeat, sweep, handshake
// deadlines) are shared by all sessions, and each does a bounded slice of work per run, so no run
// stalls the event loop (and with it every command and RADIUS request) for long.
import { chunks } from '../core/chunks.js';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type Server as WsServer } from 'ws';
import { COMPRESS_FROM_BYTES, signingKey, type KeyPair, type SigningKey } from '../../protocol/index.js';
import { iso, type Clock } from '../core/clock.js';
import { errorFields, type Logger } from '../logger.js';
import type { AllocationsService } from '../modules/allocations/index.js';
import type { AgentLinks } from './agent-links.js';
import type { RelayStream } from './stream-mux.js';
import { AgentSession, AgentSocket, type SessionHost } from './agent-session.js';
import type { CommandService, LocalLinks } from './command-service.js';
import type { CommandSignals } from './command-signals.js';
import type { RadiusRelayHandler } from './radius-relay-handler.js';
import type { AgentCommandsTable } from './tables.js';

export const AGENT_PATH = '/agent/v1';

export interface AgentHubOptions {
  /** Names this instance in `agent_links.link_instance`; unique per running controller. */
  instanceId: string;
  /** Time an agent has after the challenge to send enrol or hello (default 10 s). */
  handshakeTimeoutMs?: number;
  /** Websocket ping period; a socket silent for a whole period is dropped (default 30 s). */
  heartbeatMs?: number;
  /** Period of the sweep that sends QUEUED commands stored by other instances (default 1 s). */
  sweepMs?: number;
  /** Largest frame accepted from an authenticated agent; sized for a RouterOS backup in base64 (default 64 MiB). */
  maxPayload?: number;
  /**
   * Largest frame accepted before the handshake has succeeded (default 24 KiB): the largest valid
   * enrol or hello is ~17 KiB (a hello listing 256 capabilities), a real one under 1 KiB.
   */
  preAuthMaxPayload?: number;
  /** Sockets still in their handshake at once, all addresses together; more are refused with 503 (default 1024). */
  maxHandshakes?: number;
  /** Sockets still in their handshake at once from one address; more are refused with 429 (default 128). */
  maxHandshakesPerAddress?: number;
  /**
   * Failed enrolment codes per address (the HTTP side's failed-credentials quota): an address that
   * has spent it gets its upgrades refused with 429 until the window ends. Without it, not counted.
   */
  enrolFailures?: { record(address: string): void; exhausted(address: string): boolean };
  /** Reads the peer's address from X-Forwarded-For, as the HTTP side does behind a proxy (default false). */
  trustProxy?: boolean;
  /** How long `close()` waits for agents to close before dropping their sockets (default 2 s). */
  closeGraceMs?: number;
  /**
   * Version 3 frames to agents: a payload of this many bytes or more is deflated when that makes it
   * smaller (default `COMPRESS_FROM_BYTES`; Infinity: never). Each end decides for its own frames,
   * so the two ends need not agree; tests and bench:migration turn it off to compare.
   */
  compressFrom?: number;
}

export interface AgentHubDeps {
  /** The link rows this hub writes (the composition root shares them with their readers). */
  links: AgentLinks;
  clock: Clock;
  logger: Logger;
  identity: KeyPair;
  allocations: AllocationsService;
  commands: CommandService;
  signals: CommandSignals;
  /** Answers the RADIUS agents relay for their routers (absent: `radius` frames are ignored). */
  radiusRelay?: RadiusRelayHandler | undefined;
}

// The heartbeat pings a slice of the links every tick, so each link is pinged once per period: at
// 10k links and 30 s, ~3 pings every 10 ms. A ping is a socket write (~0.1 ms here, the kernel
// delivering it on loopback included), so 250 ms slices of ~84 pings stalled every command in
// flight by ~10 ms four times a second, which was most of the serial round trip's p99; pinging all
// at once blocked the loop for a few hundred milliseconds. The live links' `last_seen_at` is
// refreshed in one UPDATE per TOUCH_TICKS ticks (~84 rows, under a millisecond).
const HEARTBEAT_TICK_MS = 10;
const TOUCH_TICKS = 25;
// Rows per statement: below SQLite's and PostgreSQL's bound-parameter limits, and short statements.
const MAX_IDS_PER_STATEMENT = 500;
// Links whose ownership each sweep checks (one primary-key read, ~1.5 ms for 500 on SQLite); all of
// them within ceil(links / this) sweeps, i.e. 20 s at 10k links. A link taken over by another
// instance is harmless meanwhile: every send is guarded by the link's session in the database.
const OWNERSHIP_CHECKS_PER_SWEEP = 500;

export class AgentHub implements SessionHost, LocalLinks {
  readonly allocations: AllocationsService;
  readonly commands: CommandService;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly identity: KeyPair;
  readonly signingKey: SigningKey;
  readonly heartbeatSeconds: number;
  readonly handshakeTimeoutMs: number;
  readonly maxPayload: number;
  readonly compressFrom: number;
  /** Set once by whoever answers RADIUS for enrolled routers (attachRadiusRelay). */
  radiusRelay: RadiusRelayHandler | undefined;

  readonly #agentLinks: AgentLinks;
  readonly #instanceId: string;
  readonly #heartbeatMs: number;
  readonly #sweepMs: number;
  readonly #closeGraceMs: number;
  readonly #maxHandshakes: number;
  readonly #maxHandshakesPerAddress: number;
  readonly #trustProxy: boolean;
  readonly #enrolFailures: AgentHubOptions['enrolFailures'];
  /** Sessions in their handshake per remote address (entries removed at zero). */
  readonly #handshakesByAddress = new Map<string, number>();
  readonly #wss: WsServer<typeof AgentSocket>;
  /** allocation id → the session holding its link on this instance. */
  readonly #links = new Map<string, AgentSession>();
  /** Every socket, handshaking ones included, until its release has finished. */
  readonly #sessions = new Set<AgentSession>();
  /** Sessions that have not finished their handshake (the deadline sweep looks at these only). */
  readonly #handshaking = new Set<AgentSession>();
  /** Commands queued in this process whose in-process delivery has not run yet: the sweep skips them. */
  readonly #deliveringLocally = new Set<string>();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #unsubscribe: () => void;
  readonly #detachLinks: () => void;
  readonly #whenEmpty: (() => void)[] = [];
  #registrations = 0;
  #sweeping: Promise<void> | undefined;
  #beating: Promise<void> | undefined;
  /** The links to ping this heartbeat period, a slice per tick (entries cleared once done). */
  #beatRound: (AgentSession | undefined)[] = [];
  #beatNext = 0;
  #beatPerTick = 0;
  #beatTicks = 0;
  /** Live links pinged since the last `last_seen_at` refresh. */
  #touched: string[] = [];
  /** Where the next sweep's ownership check starts among the held links. */
  #checkNext = 0;
  #closing = false;
  /** Told when an agent's link comes up on this instance (modules that wait for a router resume). */
  readonly #linkUpListeners = new Set<(allocationId: string) => void>();

  constructor(deps: AgentHubDeps, options: AgentHubOptions) {
    this.#agentLinks = deps.links;
    this.clock = deps.clock;
    this.logger = deps.logger.child({ component: 'agent-hub' });
    this.identity = deps.identity;
    this.signingKey = signingKey(deps.identity.secretKey);
    this.allocations = deps.allocations;
    this.commands = deps.commands;
    this.radiusRelay = deps.radiusRelay;
    this.#instanceId = options.instanceId;
    this.handshakeTimeoutMs = options.handshakeTimeoutMs ?? 10_000;
    this.#heartbeatMs = options.heartbeatMs ?? 30_000;
    this.heartbeatSeconds = Math.max(1, Math.round(this.#heartbeatMs / 1000));
    this.#sweepMs = options.sweepMs ?? 1_000;
    this.#closeGraceMs = options.closeGraceMs ?? 2_000;
    this.maxPayload = options.maxPayload ?? 64 * 1024 * 1024;
    this.compressFrom = options.compressFrom ?? COMPRESS_FROM_BYTES;
    this.#maxHandshakes = options.maxHandshakes ?? 1024;
    this.#maxHandshakesPerAddress = options.maxHandshakesPerAddress ?? 128;
    this.#trustProxy = options.trustProxy ?? false;
    this.#enrolFailures = options.enrolFailures;
    this.#wss = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      // Every socket starts unauthenticated; the session raises the limit to maxPayload once the
      // agent is known (frame-limit.ts). ws refuses a longer frame from its header (close 1009),
      // before buffering its payload.
      maxPayload: Math.min(options.preAuthMaxPayload ?? 24 * 1024, this.maxPayload),
      // The hub tracks its sessions itself; ws's own set would cost a closure per connection.
      clientTracking: false,
      WebSocket: AgentSocket,
    });
    this.#unsubscribe = deps.signals.onCommandQueued((allocationId, commandId) => {
      const session = this.#links.get(allocationId);
      if (!session) return;
      this.#deliveringLocally.add(commandId);
      void session.deliverQueued(commandId).finally(() => this.#deliveringLocally.delete(commandId));
    });
    this.#detachLinks = deps.commands.attachLinks(this);
  }

  sessionOf(allocationId: string): string | undefined {
    const session = this.#links.get(allocationId);
    return session?.isOpen ? session.sid : undefined;
  }

  deliverClaimed(allocationId: string, sid: string, row: AgentCommandsTable): void {
    const session = this.#links.get(allocationId);
    if (session?.sid === sid) void session.deliverClaimed(row);
  }

  /** The link features in effect on the allocation's link when this instance holds it (agent-link.md). */
  featuresOf(allocationId: string): readonly string[] | undefined {
    const session = this.#links.get(allocationId);
    return session?.isOpen ? session.features : undefined;
  }

  /** Agents whose link this instance holds. */
  get connectedCount(): number {
    return this.#links.size;
  }

  /** True when this instance holds the allocation's link (another instance may hold it otherwise). */
  holds(allocationId: string): boolean {
    return this.#links.get(allocationId)?.isOpen ?? false;
  }

  /**
   * Takes an HTTP upgrade aimed at /agent/v1 and answers true; leaves any other path alone and
   * answers false, so the caller can route it elsewhere.
   */
  readonly handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    if (pathOf(req) !== AGENT_PATH) return false;
    if (this.#closing) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return true;
    }
    // Unauthenticated sockets are capped (each may hold a frame and a handshake's database work):
    // a refused agent backs off and retries, as after any failed connection.
    const address = this.#addressOf(req);
    if (this.#handshaking.size >= this.#maxHandshakes) {
      refuseUpgrade(socket, '503 Service Unavailable');
      return true;
    }
    if (
      (this.#handshakesByAddress.get(address) ?? 0) >= this.#maxHandshakesPerAddress ||
      this.#enrolFailures?.exhausted(address)
    ) {
      refuseUpgrade(socket, '429 Too Many Requests');
      return true;
    }
    // ws completes the upgrade synchronously (no verifyClient), so the counts above still hold here.
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const session = new AgentSession(ws, this);
      session.remoteAddress = address;
      this.#sessions.add(session);
      this.#handshaking.add(session);
      this.#handshakesByAddress.set(address, (this.#handshakesByAddress.get(address) ?? 0) + 1);
      session.start(this.handshakeTimeoutMs);
    });
    return true;
  };

  /** Sessions still in their handshake (for tests and status). */
  get handshakingCount(): number {
    return this.#handshaking.size;
  }

  /** The session has left its handshake (welcomed, refused or closed): it no longer counts as unauthenticated. */
  handshakeEnded(session: AgentSession): void {
    if (!this.#handshaking.delete(session)) return;
    const left = (this.#handshakesByAddress.get(session.remoteAddress) ?? 1) - 1;
    if (left > 0) this.#handshakesByAddress.set(session.remoteAddress, left);
    else this.#handshakesByAddress.delete(session.remoteAddress);
  }

  /**
   * The allocation was revoked: its link is recorded as down and, held here, closed at once with
   * AGENT_REVOKED (final for the agent); another instance holding it closes it at its next ownership
   * check, and the agent's reconnection is refused AGENT_REVOKED by the handshake.
   */
  async revoked(allocationId: string): Promise<void> {
    await this.#agentLinks.drop(allocationId, iso(this.clock.now()));
    this.#links.get(allocationId)?.refuse('AGENT_REVOKED', 'this agent was revoked');
  }

  enrolmentRefused(session: AgentSession): void {
    this.#enrolFailures?.record(session.remoteAddress);
  }

  // The peer's address as the HTTP side reads it: behind a trusted proxy, the first X-Forwarded-For entry.
  #addressOf(req: IncomingMessage): string {
    if (this.#trustProxy) {
      const header = req.headers['x-forwarded-for'];
      const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
      if (first) return first;
    }
    return req.socket.remoteAddress ?? '';
  }

  /** For a server with no other websocket endpoint: takes /agent/v1 upgrades and refuses the rest. */
  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!this.handleUpgrade(req, socket, head)) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
    });
  }

  /** The RADIUS server is built after the hub: it hands its relay handler over here. */
  attachRadiusRelay(handler: RadiusRelayHandler): void {
    if (this.radiusRelay) throw new Error('the RADIUS relay is already attached');
    this.radiusRelay = handler;
  }

  /** Starts the heartbeat, the cross-instance sweep and the handshake deadlines. */

  start(): void {
    const every = (ms: number, fn: () => void) => {
      const timer = setInterval(fn, ms);
      timer.unref();
      this.#timers.push(timer);
    };
    const ticksPerBeat = Math.max(1, Math.round(this.#heartbeatMs / HEARTBEAT_TICK_MS));
    every(this.#heartbeatMs / ticksPerBeat, () => this.#heartbeat(ticksPerBeat));
    every(this.#sweepMs, () => {
      this.#sweeping ??= this.sweep().finally(() => (this.#sweeping = undefined));
    });
    // A quarter of the timeout: a silent peer is refused between 1 and 1.25 timeouts after its challenge.
    every(Math.max(20, Math.min(1_000, this.handshakeTimeoutMs / 4)), () => this.#expireHandshakes());
  }

  /**
   * Sends the QUEUED commands of every link held here (stored by any instance), and closes the
   * sessions whose link the database says another connection has taken over (checking a slice of
   * the links per run).
   */
  async sweep(): Promise<void> {
    if (this.#links.size === 0) return;
    try {
      const mark = this.#registrations;
      const held = [...this.#links.values()];
      if (this.#checkNext >= held.length) this.#checkNext = 0;
      const checked = held.slice(this.#checkNext, this.#checkNext + OWNERSHIP_CHECKS_PER_SWEEP);
      this.#checkNext += checked.length;
      const owners = await this.#agentLinks.owners(
        this.#instanceId,
        checked.map((s) => s.agent!.allocationId),
      );
      for (const session of checked) {
        // A session registered after the read above may not be in it yet.
        if (session.registration <= mark && owners.get(session.agent!.allocationId) !== session.sid) {
          session.refuse('SESSION_REPLACED', 'a newer connection of this agent took over');
        }
      }
      const byAllocation = new Map<string, AgentCommandsTable[]>();
      for (const row of await this.commands.queuedForInstance(this.#instanceId)) {
        // Queued here a moment ago: its in-process delivery is on the way, do not race it.
        if (this.#deliveringLocally.has(row.id)) continue;
        const rows = byAllocation.get(row.allocation_id) ?? [];
        rows.push(row);
        byAllocation.set(row.allocation_id, rows);
      }
      for (const [allocationId, rows] of byAllocation) void this.#links.get(allocationId)?.deliverRows(rows);
    } catch (err) {
      this.logger.error(errorFields(err, this.logger), 'agent link sweep failed');
    }
  }

  async register(session: AgentSession): Promise<void> {
    const agent = session.agent!;
    await this.#agentLinks.markConnected(agent.allocationId, {
      instance: this.#instanceId,
      session: session.sid,
      now: iso(this.clock.now()),
      agentVersion: agent.version,
    });
    this.#registrations += 1;
    session.registration = this.#registrations;
    const previous = this.#links.get(agent.allocationId);
    this.#links.set(agent.allocationId, session);
    if (previous && previous !== session) {
      previous.refuse('SESSION_REPLACED', 'a newer connection of this agent took over');
    }
    for (const listener of this.#linkUpListeners) listener(agent.allocationId);
  }

  /**
   * A byte stream to `port` of the allocation's router, opened by its agent, when this instance
   * holds the link in version 3; undefined otherwise (link down, held elsewhere, an older agent).
   * Usable at once; destroyed with a StreamOpenError when the agent cannot connect.
   */
  openStream(allocationId: string, port: number): RelayStream | undefined {
    const session = this.#links.get(allocationId);
    if (!session?.isOpen || session.version < 3) return undefined;
    return session.streams.open(port);
  }

  /**
   * Calls `listener` each time an agent's link comes up on this instance (after it is recorded
   * CONNECTED). A listener must not throw nor block: it starts its own work. Returns the unsubscribe.
   */
  onLinkUp(listener: (allocationId: string) => void): () => void {
    this.#linkUpListeners.add(listener);
    return () => this.#linkUpListeners.delete(listener);
  }

  async release(session: AgentSession): Promise<void> {
    try {
      const agent = session.agent;
      if (!agent || session.registration === 0) return;
      if (this.#links.get(agent.allocationId) === session) this.#links.delete(agent.allocationId);
      await this.#agentLinks.markDisconnected(agent.allocationId, session.sid, iso(this.clock.now()));
    } finally {
      this.#sessions.delete(session);
      this.handshakeEnded(session);
      if (this.#sessions.size === 0) for (const resolve of this.#whenEmpty.splice(0)) resolve();
    }
  }

  /** Graceful stop: tells every agent SHUTTING_DOWN, waits for the sockets (and their writes) to close. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
    this.#unsubscribe();
    this.#detachLinks();
    await Promise.all([this.#sweeping, this.#beating]);
    const sessions = [...this.#sessions];
    for (const session of sessions) session.refuse('SHUTTING_DOWN', 'controller is stopping');
    const all = new Promise<void>((resolve) => {
      if (this.#sessions.size === 0) resolve();
      else this.#whenEmpty.push(resolve);
    });
    let grace: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'late'>(
      (resolve) => (grace = setTimeout(() => resolve('late'), this.#closeGraceMs)),
    );
    if ((await Promise.race([all, graceOver])) === 'late') {
      for (const session of sessions) session.terminate();
      await all;
    }
    clearTimeout(grace);
    this.#beatRound = [];
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  // One heartbeat tick: pings the next slice of this period's links and drops those that did not
  // answer the previous ping; every TOUCH_TICKS ticks (and at the end of a period) refreshes
  // `last_seen_at` of the live ones in one statement, unless the previous refresh is still running.
  #heartbeat(ticksPerBeat: number): void {
    if (this.#beatTicks % ticksPerBeat === 0) {
      // A new period: the links held now. Links that arrive during the period wait for the next.
      this.#beatRound = [...this.#links.values()];
      this.#beatNext = 0;
      this.#beatPerTick = Math.ceil(this.#beatRound.length / ticksPerBeat);
    }
    this.#beatTicks += 1;
    const end = Math.min(this.#beatRound.length, this.#beatNext + this.#beatPerTick);
    for (; this.#beatNext < end; this.#beatNext++) {
      const session = this.#beatRound[this.#beatNext];
      this.#beatRound[this.#beatNext] = undefined;
      // Closed or replaced since the period began: nothing to ping, nothing to refresh.
      if (!session?.isOpen || this.#links.get(session.agent!.allocationId) !== session) continue;
      if (session.heartbeat()) this.#touched.push(session.agent!.allocationId);
    }
    const periodEnd = this.#beatTicks % ticksPerBeat === 0;
    if (this.#touched.length === 0 || this.#beating || (!periodEnd && this.#beatTicks % TOUCH_TICKS !== 0)) {
      return;
    }
    const alive = this.#touched;
    this.#touched = [];
    this.#beating = this.#touch(alive).finally(() => (this.#beating = undefined));
  }

  async #touch(alive: string[]): Promise<void> {
    try {
      const now = iso(this.clock.now());
      for (const ids of chunks(alive, MAX_IDS_PER_STATEMENT))
        await this.#agentLinks.touch(this.#instanceId, ids, now);
    } catch (err) {
      this.logger.error(errorFields(err, this.logger), 'agent heartbeat write failed');
    }
  }

  #expireHandshakes(): void {
    const now = performance.now();
    for (const session of this.#handshaking) {
      if (!session.isHandshaking) this.handshakeEnded(session);
      else if (now >= session.handshakeDeadline) {
        this.handshakeEnded(session);
        session.refuse('HANDSHAKE_TIMEOUT', 'no enrol or hello in time');
      }
    }
  }
}

function refuseUpgrade(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nRetry-After: 5\r\nContent-Length: 0\r\n\r\n`);
}

function pathOf(req: IncomingMessage): string | undefined {
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch (err) {
    if (err instanceof TypeError) return undefined;
    throw err;
  }
}
