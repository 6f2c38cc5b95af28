// One agent connection, from the challenge to the close: the handshake (enrol or hello, checked by
// agent-handshake.ts), then, once the link is recorded and the agent welcomed, signed frames in
// order (acks, results, reports, pings) and the commands the hub gives it to send.
// Frames are handled one at a time so an ack is recorded before the result that follows it.
// The connection speaks the protocol version the agent chose from the challenge's offer; in version
// 2 an agent frame may be a `batch` (an ack and its result under one signature: one verification and
// one database write), and commands that go out together travel as one batch. In version 3 the
// signed hello/enrol and welcome carry each end's ephemeral X25519 key, and every frame after the
// welcome is sealed with the session key of its direction (a MAC, no signature: `sealFrame`/`openFrame`).
//
// A controller holds thousands of these, so a session keeps to a few fields: no timer (the hub
// enforces the handshake deadline and the heartbeat from its own periodic sweeps), no closures (the
// socket listeners are shared functions that find the session on the socket), no logger of its own
// (the ids are added to the rare log line), and queues and maps only while they hold something.
import { WebSocket, type RawData } from 'ws';
import type { z } from 'zod';
import {
  deriveSessionKeys,
  encodeEnvelope,
  generateEphemeralKeyPair,
  generateSessionNonce,
  HANDSHAKE_VERSION,
  MAX_BATCH_MESSAGES,
  MAX_COMMAND_TTL_MS,
  type MESSAGE_SCHEMAS,
  messagesOf,
  openEnvelope,
  openFrame,
  ProtocolError,
  sealFrame,
  MAC_POLY1305_FEATURE,
  SEALED_VERSION,
  STREAM_BYTES_FEATURE,
  STREAM_LARGE_FEATURE,
  SequenceCounter,
  SequenceGuard,
  signEnvelope,
  SUPPORTED_VERSIONS,
  verifyingKey,
  type BatchedMessage,
  type KeyPair,
  type LinkErrorCode,
  type MessageBody,
  type MessageOf,
  type MessageType,
  type SessionKeys,
  type SigningKey,
  type VerifyingKey,
} from '../../protocol/index.js';
import type { Clock } from '../core/clock.js';
import { errorFields, type Logger } from '../logger.js';
import type { AllocationsService } from '../modules/allocations/index.js';
import type { CommandService } from './command-service.js';
import { agentHandshake, readFirstFrame, type SessionAgent } from './agent-handshake.js';
import { raiseFrameLimit } from './frame-limit.js';
import type { RadiusFrame, RadiusRelayHandler } from './radius-relay-handler.js';
import { StreamMux } from './stream-mux.js';
import type { AgentCommandsTable } from './tables.js';

/** The agent of a linked session. */
export type LinkedAgent = Omit<SessionAgent, 'publicKey'>;

/** What a session needs from its hub. */
export interface SessionHost {
  readonly allocations: AllocationsService;
  readonly commands: CommandService;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly identity: KeyPair;
  /** The controller's secret key, made ready once for every frame the hub signs. */
  readonly signingKey: SigningKey;
  readonly heartbeatSeconds: number;
  /** Largest frame an authenticated agent may send; before that the server's small limit holds. */
  readonly maxPayload: number;
  /** Version 3: a payload of this many bytes or more is compressed (Infinity: never). */
  readonly compressFrom: number;
  /** Where relayed RADIUS goes; without it `radius` frames are ignored. */
  readonly radiusRelay?: RadiusRelayHandler | undefined;
  /** Records the link as this session's (database first), replacing any older session of the agent. */
  register(session: AgentSession): Promise<void>;
  /** The session left its handshake (welcomed, refused or closed); may be called more than once. */
  handshakeEnded(session: AgentSession): void;
  /** An enrolment code was refused: counts as a failed credential of the session's address. */
  enrolmentRefused(session: AgentSession): void;
  /** Called once, when the socket is closed and the session's handlers have finished. */
  release(session: AgentSession): Promise<void>;
}

/**
 * The socket class of the hub's WebSocketServer: a ws WebSocket that carries its session, so that
 * one set of listener functions serves every connection.
 */
export class AgentSocket extends WebSocket {
  session: AgentSession | undefined;
}

// Frames waiting for their turn before the socket stops being read (backpressure on a flood).
const MAX_BACKLOG = 16;
// Time a refused peer has to answer the close frame before its socket is dropped.
const CLOSE_GRACE_MS = 2_000;
// Relayed RADIUS requests of one link being answered at once; more are dropped (the router retries).
const MAX_RADIUS_IN_FLIGHT = 256;
/** What the controller names in a version 3 welcome: each is used with an agent that named it too. */
const LINK_FEATURES = [STREAM_BYTES_FEATURE, STREAM_LARGE_FEATURE, MAC_POLY1305_FEATURE];

export class AgentSession {
  /** The challenge nonce, also the `sid` of every envelope on this connection. */
  readonly sid = generateSessionNonce();
  /** Set once the handshake succeeded (without the agent's key: nothing after it needs the text). */
  agent: LinkedAgent | undefined;
  /** False between a heartbeat ping and any sign of life from the agent. */
  alive = true;
  /** The agent pinged since the last heartbeat (agents ping every heartbeat period too). */
  pinged = false;
  /** Order in which the hub registered sessions; the sweep only judges sessions older than its read. */
  registration = 0;
  /** `performance.now()` (ms) by which enrol or hello must have succeeded; the hub's sweep enforces it. */
  handshakeDeadline = 0;
  /** The peer's address, as the hub counted it among the unauthenticated sockets. */
  remoteAddress = '';
  /** The link features in effect once welcomed: those the welcome and the agent's hello both named. */
  features: readonly string[] = [];

  #state: 'handshake' | 'open' | 'closed' = 'handshake';
  /** Protocol version of the connection: the handshake's until the agent's enrol or hello names its own. */
  #version = HANDSHAKE_VERSION;
  /** The agent's public key, made ready once the handshake has verified it. */
  #agentKey: VerifyingKey | undefined;
  /** Version 3: the session's MAC keys, set once the welcome is sent; every frame after is sealed. */
  #keys: SessionKeys | undefined;
  readonly #out = new SequenceCounter();
  readonly #in = new SequenceGuard();
  /** Commands sent on this link and not yet answered: id → name (a result then needs no read). */
  #sent: Map<string, string> | undefined;
  /** Commands already recorded as sent on this link, waiting behind a delivery to go out. */
  #claimedWaiting: Set<string> | undefined;
  /** Frames received while one is being handled. */
  #backlog: RawData[] | undefined;
  #handling = false;
  /** The delivery in progress; deliveries run one after another. */
  #delivering: Promise<void> | undefined;
  /** Frame handling and deliveries still running; the release waits for them. */
  #busy = 0;
  #socketClosed = false;
  #released = false;
  /** Relayed RADIUS requests being answered. */
  #radiusInFlight = 0;
  /** Made on the first stream: most links never carry one, and 10,000 idle muxes weigh ~5 MB. */
  #streams: StreamMux | undefined;

  constructor(
    private readonly ws: AgentSocket,
    private readonly host: SessionHost,
  ) {
    ws.session = this;
    ws.on('message', AgentSession.#onMessage);
    ws.on('pong', AgentSession.#onPong);
    ws.on('ping', AgentSession.#onPing);
    ws.on('error', AgentSession.#onError);
    ws.on('close', AgentSession.#onClose);
  }

  get isOpen(): boolean {
    return this.#state === 'open';
  }

  /** Byte streams to the router over this link (version 3). */
  get streams(): StreamMux {
    if (this.#streams === undefined) {
      const mux = new StreamMux((type, body) => this.#send(type, body as never));
      // raw device bytes only in sealed frames, to an agent that said it reads them (the welcome's
      // features are those both ends named, and none without session keys)
      mux.rawBytes = this.features.includes(STREAM_BYTES_FEATURE);
      mux.largeChunks = mux.rawBytes && this.features.includes(STREAM_LARGE_FEATURE);
      this.#streams = mux;
    }
    return this.#streams;
  }

  /** The protocol version of the connection (byte streams need 3). */
  get version(): number {
    return this.#version;
  }

  /** True until enrol or hello has succeeded (or the session closed). */
  get isHandshaking(): boolean {
    return this.#state === 'handshake';
  }

  /** Sends the challenge and starts the handshake clock. */
  start(handshakeTimeoutMs: number): void {
    this.handshakeDeadline = performance.now() + handshakeTimeoutMs;
    this.#send('challenge', {
      nonce: this.sid,
      controller_key: this.host.identity.publicKey,
      server_time: this.host.clock.now().toISOString(),
      versions: [...SUPPORTED_VERSIONS],
    });
  }

  /** Tells the agent why, then closes. Does nothing on a session already closing. */
  refuse(code: LinkErrorCode, message: string): void {
    if (this.#state === 'closed') return;
    this.#send('error', { code, message });
    this.#setState('closed');
    this.host.logger.info(this.#fields({ code, message }), 'agent link refused');
    this.ws.close(closeCodeOf(code), code);
    // A peer that never answers the close frame would hold the link for ws's 30 s close timeout.
    setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS).unref();
  }

  /**
   * Heartbeat: kills a socket that did not answer the last ping, else pings again.
   * An agent that pinged since the last beat is alive and is not pinged.
   * @returns true when the agent was alive (and is pinged, unless it pinged), false when it was dropped.
   */
  heartbeat(): boolean {
    // The agent pinged since the last beat: it is alive and knows we are (ws answered with a pong),
    // so a ping of ours would only double the traffic. A dead agent stops pinging and gets ours.
    if (this.pinged) {
      this.pinged = false;
      this.alive = true;
      return true;
    }
    if (!this.alive) {
      this.host.logger.info(this.#fields({}), 'agent missed its heartbeat');
      this.ws.terminate();
      return false;
    }
    this.alive = false;
    this.ws.ping();
    return true;
  }

  /** Forcibly drops the socket (shutdown grace over). */
  terminate(): void {
    this.ws.terminate();
  }

  /** Sends every open command of the allocation (a fresh link also resends SENT and ACKED ones). */
  deliverOpen(): Promise<void> {
    return this.#deliver(() => this.host.commands.openFor(this.agent!.allocationId), false);
  }

  /** Sends command `id`, just queued in this process, if it is still QUEUED. */
  deliverQueued(id: string): Promise<void> {
    return this.#deliver(async () => {
      const row = await this.host.commands.claimQueued(id, this.sid);
      return row ? [row] : [];
    }, true);
  }

  /** Sends the given commands of this session's allocation (the sweep's rows). */
  deliverRows(rows: AgentCommandsTable[]): Promise<void> {
    return this.#deliver(async () => rows, false);
  }

  /** Sends a command the database already recorded as SENT on this connection's link (`claimQueued`). */
  deliverClaimed(row: AgentCommandsTable): Promise<void> | undefined {
    // Nothing queued before it on this connection: out now, in this turn, without a delivery's
    // promises (the path of every command sent to a linked agent).
    if (this.#delivering === undefined) {
      try {
        this.#sendRows([row]);
      } catch (err) {
        this.host.logger.error(this.#fields(errorFields(err, this.host.logger)), 'command delivery failed');
      }
      return undefined;
    }
    // Claimed for this connection while a delivery (a fresh link's open commands) reads: that read
    // may see the row too, and must leave it to this delivery rather than record a second send.
    const waiting = (this.#claimedWaiting ??= new Set());
    waiting.add(row.id);
    return this.#deliver(async () => {
      waiting.delete(row.id);
      return [row];
    }, true);
  }

  // Deliveries run one after another; each command goes out at most once per connection, and only
  // after the database has recorded the send on this connection's link (`claimed`: the read did).
  // The sends of one delivery are recorded together (one group commit), and its commands go out
  // together: one batch from version 2.
  #deliver(read: () => Promise<AgentCommandsTable[]>, claimed: boolean): Promise<void> {
    const run = async () => {
      if (!this.isOpen) return;
      let rows = (await read()).filter(
        (row) => !this.#sent?.has(row.id) && !this.#claimedWaiting?.has(row.id),
      );
      if (!claimed) {
        const sid = this.sid;
        const claims = await Promise.allSettled(
          rows.map((row) => this.host.commands.claimForSend(row.id, sid)),
        );
        // Claimed is recorded as sent: what was claimed goes out, even when another claim failed.
        rows = rows.filter((_, i) => {
          const claim = claims[i]!;
          return claim.status === 'fulfilled' && claim.value;
        });
        this.#sendRows(rows);
        const failed = claims.find((c) => c.status === 'rejected');
        if (failed) throw failed.reason;
        return;
      }
      this.#sendRows(rows);
    };
    this.#busy += 1;
    const delivery: Promise<void> = (this.#delivering ?? Promise.resolve())
      .then(run)
      .catch((err: unknown) => {
        this.host.logger.error(this.#fields(errorFields(err, this.host.logger)), 'command delivery failed');
      })
      .finally(() => {
        if (this.#delivering === delivery) this.#delivering = undefined;
        this.#settle();
      });
    this.#delivering = delivery;
    return delivery;
  }

  // Commands recorded as sent on this connection, out in order (batches of at most MAX_BATCH_MESSAGES).
  #sendRows(rows: AgentCommandsTable[]): void {
    const out: BatchedMessage[] = [];
    for (const row of rows) {
      if (!this.isOpen) return;
      if (this.#sent?.has(row.id)) continue;
      (this.#sent ??= new Map()).set(row.id, row.name);
      out.push({
        type: 'command',
        body: {
          id: row.id,
          name: row.name,
          params: JSON.parse(row.params) as Record<string, unknown>,
          deadline: row.deadline,
          // What the agent counts: the time left, on no clock but its own monotonic one.
          ttl_ms: timeToLive(row.deadline, this.host.clock.now()),
        },
      });
      if (out.length === MAX_BATCH_MESSAGES) this.#sendAll(out.splice(0));
    }
    this.#sendAll(out);
  }

  #receive(raw: RawData): void {
    if (this.#handling) {
      const backlog = (this.#backlog ??= []);
      backlog.push(raw);
      // Before the handshake has succeeded a peer gets one frame in hand and one waiting, no more.
      if (backlog.length >= MAX_BACKLOG || this.#state === 'handshake') this.ws.pause();
      return;
    }
    void this.#handleAll(raw);
  }

  // Handles `first`, then whatever arrived meanwhile, in order; frames after a close are dropped.
  async #handleAll(first: RawData): Promise<void> {
    this.#handling = true;
    this.#busy += 1;
    for (let raw: RawData | undefined = first; raw !== undefined; raw = this.#backlog?.shift()) {
      if (this.#state === 'closed') break;
      try {
        await this.#handle(raw);
      } catch (err) {
        this.#fail(err);
      }
      if (this.ws.isPaused && (this.#backlog?.length ?? 0) <= 1) this.ws.resume();
    }
    this.#backlog = undefined;
    this.#handling = false;
    this.#settle();
  }

  async #handle(raw: RawData): Promise<void> {
    this.alive = true;
    if (this.#state === 'handshake') return this.#handshake(raw);
    const agent = this.agent!;
    const envelope = this.#keys
      ? openFrame(raw, { keys: this.#keys, from: 'agent', maxBytes: this.host.maxPayload })
      : openEnvelope(raw, {
          publicKey: this.#agentKey!,
          sid: this.sid,
          from: 'agent',
          version: this.#version,
        });
    this.#in.accept(envelope.seq);
    const messages = messagesOf(envelope);
    // An ack whose result is in the same batch needs no write of its own: the result's write
    // records the acknowledgement too (`acked_at`), so the pair costs one write.
    let answered: Set<string> | undefined;
    if (messages.length > 1) {
      for (const m of messages) if (m.type === 'result') (answered ??= new Set()).add(m.body.id);
    }
    for (let i = 0; i < messages.length; i++) {
      if (this.#state === 'closed') return;
      const message = messages[i]!;
      if (message.type === 'ack' && answered?.has(message.body.id)) continue;
      // Reports in a row (an agent sending its backlog) are recorded together and acknowledged in
      // one report_ack: the network-quality points among them are stored in one batch.
      let end = i + 1;
      if (message.type === 'report') while (end < messages.length && messages[end]!.type === 'report') end++;
      if (end - i > 1) {
        const reports = messages.slice(i, end).map((m) => m.body as MessageBody<'report'>);
        await this.host.allocations.recordReports(agent.allocationId, reports, agent.clientId);
        this.#send('report_ack', { ids: reports.map((r) => r.id) });
        i = end - 1;
        continue;
      }
      await this.#dispatch(agent, message, envelope.ts);
    }
  }

  async #dispatch(agent: LinkedAgent, message: MessageOf, signedAt: string): Promise<void> {
    const { allocations, commands } = this.host;
    switch (message.type) {
      case 'ack':
        return commands.acknowledge(agent.allocationId, message.body.id);
      case 'result': {
        const { id } = message.body;
        await commands.complete(agent.allocationId, message.body, signedAt, this.#sent?.get(id));
        // Final now (or already was): it will not be sent on this link again.
        this.#sent?.delete(id);
        return;
      }
      case 'report':
        await allocations.recordReport(agent.allocationId, message.body, agent.clientId);
        // Acked after it is stored, every time: a resend means the agent missed the last ack.
        this.#send('report_ack', { ids: [message.body.id] });
        return;
      case 'ping':
        this.#send('pong', { t: message.body.t });
        return;
      case 'pong':
        return;
      case 'radius':
        // Not awaited: frames keep flowing while RADIUS answers (it commits in batches).
        this.#relayRadius(agent, message.body);
        return;
      case 'stream_opened':
      case 'stream_data':
      case 'stream_credit':
      case 'stream_close':
        // No mux yet: no stream was ever opened here, so the message names none of ours.
        this.#streams?.receive(message);
        return;
      default:
        this.refuse('UNEXPECTED_MESSAGE', `${message.type} not expected after the handshake`);
    }
  }

  #relayRadius(agent: LinkedAgent, frame: RadiusFrame): void {
    const relay = this.host.radiusRelay;
    if (!relay || this.#radiusInFlight >= MAX_RADIUS_IN_FLIGHT) {
      this.host.logger.debug(this.#fields({}), 'radius frame dropped');
      return;
    }
    this.#radiusInFlight += 1;
    relay(agent.allocationId, agent.clientId, frame)
      .then((reply) => {
        if (reply) this.#send('radius', reply);
      })
      .catch((err: unknown) =>
        this.host.logger.error(this.#fields(errorFields(err, this.host.logger)), 'radius relay failed'),
      )
      .finally(() => (this.#radiusInFlight -= 1));
  }

  async #handshake(raw: RawData): Promise<void> {
    const first = readFirstFrame(raw, this.sid);
    // The agent chose the version from the challenge's offer; the answer (welcome, or an error) and
    // everything after are in it. Unverified yet, but it only picks the language of the reply.
    this.#version = first.v;
    const answer = await agentHandshake(raw, first, {
      sid: this.sid,
      inbound: this.#in,
      allocations: this.host.allocations,
    });
    if ('refused' in answer) {
      if (answer.refused.code === 'ENROL_CODE_INVALID') this.host.enrolmentRefused(this);
      this.refuse(answer.refused.code, answer.refused.message);
      return;
    }
    const { agent } = answer;
    // A method call, not a property read: the state changes across the awaits above.
    if (this.#isClosed()) return;
    // Version 3: the agent's ephemeral key came in its verified frame; ours goes in the signed welcome.
    let keys: SessionKeys | undefined;
    let sessionKey: string | undefined;
    const named = answer.capabilities ?? [];
    if (this.#version >= SEALED_VERSION) {
      const own = generateEphemeralKeyPair();
      keys = deriveSessionKeys({
        role: 'controller',
        sid: this.sid,
        own,
        peerPublicKey: answer.sessionKey!,
        agentKey: agent.publicKey,
        controllerKey: this.host.identity.publicKey,
        // the welcome names it too: both ends then MAC large frames with Poly1305
        poly1305: named.includes(MAC_POLY1305_FEATURE),
      });
      sessionKey = own.publicKey;
    }
    const { publicKey, ...linked } = agent;
    this.agent = linked;
    // Signed sessions check every frame against the agent's key; sealed ones need only the session keys.
    if (keys === undefined) this.#agentKey = verifyingKey(publicKey);
    await this.host.register(this);
    // The socket may have closed (or timed out) while the database was answering.
    if (this.#isClosed()) return;
    // Authenticated: from now on the agent may send large frames (results such as exports, backups).
    raiseFrameLimit(this.ws, this.host.maxPayload);
    this.#setState('open');
    this.#send('welcome', {
      agent_id: agent.agentId,
      allocation_id: agent.allocationId,
      controller_key: this.host.identity.publicKey,
      heartbeat_seconds: this.host.heartbeatSeconds,
      ...(sessionKey ? { session_key: sessionKey, features: LINK_FEATURES } : {}),
    });
    this.#keys = keys;
    this.features = keys === undefined ? [] : LINK_FEATURES.filter((f) => named.includes(f));
    this.host.logger.info(
      this.#fields({ version: agent.version, features: this.features }),
      'agent connected',
    );
    void this.deliverOpen();
  }

  #setState(next: 'open' | 'closed'): void {
    const was = this.#state;
    this.#state = next;
    if (was === 'handshake') this.host.handshakeEnded(this);
  }

  #isClosed(): boolean {
    return this.#state === 'closed';
  }

  #fail(err: unknown): void {
    if (err instanceof ProtocolError) {
      this.refuse(err.code, err.message);
      return;
    }
    this.host.logger.error(this.#fields(errorFields(err, this.host.logger)), 'agent frame handling failed');
    this.refuse('INTERNAL_ERROR', 'controller error; reconnect later');
  }

  #closed(code: number): void {
    this.#setState('closed');
    this.#socketClosed = true;
    this.#streams?.closeAll();
    this.host.logger.debug(this.#fields({ code }), 'agent link closed');
    this.#releaseWhenIdle();
  }

  // One frame handler or delivery has finished.
  #settle(): void {
    this.#busy -= 1;
    this.#releaseWhenIdle();
  }

  // The hub hears of the close once the socket is gone and nothing the session started is running.
  #releaseWhenIdle(): void {
    if (!this.#socketClosed || this.#busy > 0 || this.#released) return;
    this.#released = true;
    this.ws.session = undefined;
    this.host.release(this).catch((err: unknown) => {
      this.host.logger.error(
        this.#fields(errorFields(err, this.host.logger)),
        'releasing an agent link failed',
      );
    });
  }

  /** Log fields naming the agent, once known. */
  #fields(extra: Record<string, unknown>): Record<string, unknown> {
    const agent = this.agent;
    return agent ? { allocationId: agent.allocationId, agentId: agent.agentId, ...extra } : extra;
  }

  #send<T extends MessageType>(type: T, body: z.input<(typeof MESSAGE_SCHEMAS)[T]>): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    if (this.#keys) {
      this.ws.send(
        sealFrame(type, body, {
          keys: this.#keys,
          seq: this.#out.next(),
          now: this.host.clock.now(),
          // a device's bytes are not compressed by the link (see the agent's STREAM_COMPRESS_FROM)
          compressFrom: type === 'stream_data' ? Number.POSITIVE_INFINITY : this.host.compressFrom,
        }),
      );
      return;
    }
    const envelope = signEnvelope(type, body, {
      sid: this.sid,
      seq: this.#out.next(),
      secretKey: this.host.signingKey,
      v: this.#version,
      now: this.host.clock.now(),
    });
    // No callback: a failed write closes the socket, and the close event does the cleanup.
    this.ws.send(encodeEnvelope(envelope));
  }

  // Several messages at once: one batch (one signature) in version 2, one frame each in version 1.
  #sendAll(messages: BatchedMessage[]): void {
    if (messages.length === 0) return;
    if (messages.length === 1 || this.#version < 2) {
      for (const m of messages) this.#send(m.type, m.body as never);
      return;
    }
    this.#send('batch', { messages });
  }

  // The socket listeners: one function each for every connection, finding the session on the socket.
  static #onMessage(this: WebSocket, raw: RawData): void {
    const session = (this as AgentSocket).session;
    if (session) session.#receive(raw);
  }

  static #onPong(this: WebSocket): void {
    const session = (this as AgentSocket).session;
    if (session) session.alive = true;
  }

  static #onPing(this: WebSocket): void {
    const session = (this as AgentSocket).session;
    if (session) {
      session.alive = true;
      session.pinged = true;
    }
  }

  static #onError(this: WebSocket, err: Error): void {
    // The close that follows does the work; the error itself is only worth a debug line.
    const session = (this as AgentSocket).session;
    if (!session) return;
    if ((err as NodeJS.ErrnoException).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
      // ws has closed it with 1009; before the handshake this is the pre-authentication frame limit.
      const limit = session.#state === 'handshake' ? 'before the handshake' : 'of an agent';
      session.host.logger.info(
        session.#fields({ address: session.remoteAddress }),
        `frame over the limit ${limit}`,
      );
      return;
    }
    session.host.logger.debug(session.#fields(errorFields(err, session.host.logger)), 'agent socket error');
  }

  static #onClose(this: WebSocket, code: number): void {
    const session = (this as AgentSocket).session;
    if (session) session.#closed(code);
  }
}

function timeToLive(deadline: string, now: Date): number {
  return Math.min(MAX_COMMAND_TTL_MS, Math.max(0, Date.parse(deadline) - now.getTime()));
}

function closeCodeOf(code: LinkErrorCode): number {
  if (code === 'SHUTTING_DOWN') return 1001;
  if (code === 'INTERNAL_ERROR') return 1011;
  return 1008;
}
