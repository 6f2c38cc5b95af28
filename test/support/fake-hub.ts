// A controller stand-in for agent tests: a real `ws` server at /agent/v1 that runs the handshake
// with the protocol package, records what agents send, and misbehaves on demand (drops sockets,
// withholds report_acks, signs with another key, stops answering pings). It speaks version 1 unless
// given `versions` to offer; in version 3 it derives the session keys and seals its frames.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type WebSocket from 'ws';
import {
  deriveSessionKeys,
  encodeEnvelope,
  generateEphemeralKeyPair,
  generateKeyPair,
  generateSessionNonce,
  normaliseEnrolCode,
  messagesOf,
  openEnvelope,
  openFrame,
  parseEnvelopeUnverified,
  sealFrame,
  SEALED_VERSION,
  SequenceCounter,
  SequenceGuard,
  signEnvelope,
} from '../../protocol/index.js';
import type {
  KeyPair,
  LinkErrorCode,
  MessageBody,
  MessageType,
  RawFrame,
  SessionKeys,
} from '../../protocol/index.js';

type Report = MessageBody<'report'>;
type Result = MessageBody<'result'>;

export interface FakeHubOptions {
  heartbeatSeconds?: number;
  keyPair?: KeyPair;
  /** Answer ws pings (default true); false makes the hub look dead to the agent's heartbeat. */
  autoPong?: boolean;
  /** Listen on this port (default: any free one), e.g. to bring a hub back where agents expect it. */
  port?: number;
  /** Protocol versions offered in the challenge (default: none, a version 1 controller). */
  versions?: number[];
}

interface AgentRecord {
  publicKey: string;
  allocationId: string;
  revoked: boolean;
}

/** One agent connection on the hub. */
export class HubConnection {
  readonly sid = generateSessionNonce();
  readonly counter = new SequenceCounter();
  readonly guard = new SequenceGuard();
  agentId: string | undefined;
  /** Protocol version of the connection: that of the agent's enrol or hello. */
  version = 1;
  /** Version 3: the session keys, once the welcome is sent. */
  keys: SessionKeys | undefined;
  /** Frames received after the handshake, by type. */
  readonly received: { type: string; body: unknown }[] = [];

  constructor(
    readonly ws: WebSocket,
    private readonly secretKey: string,
    /** How far this hub's clock is from the real one (a controller without NTP). */
    private readonly clockOffsetMs = 0,
  ) {}

  send<T extends MessageType>(type: T, body: MessageBody<T>): void {
    const now = new Date(Date.now() + this.clockOffsetMs);
    if (this.keys) {
      this.ws.send(sealFrame(type, body as never, { keys: this.keys, seq: this.counter.next(), now }));
      return;
    }
    const envelope = signEnvelope(type, body as never, {
      sid: this.sid,
      seq: this.counter.next(),
      secretKey: this.secretKey,
      v: this.version,
      now,
    });
    this.ws.send(encodeEnvelope(envelope));
  }

  /** Sends bytes as they are (a forged or tampered frame). */
  sendRaw(frame: Buffer): void {
    this.ws.send(frame);
  }

  refuse(code: LinkErrorCode, message = ''): void {
    this.send('error', { code, message });
    this.ws.close(1008, code);
  }
}

export class FakeHub {
  readonly keyPair: KeyPair;
  /** When set, challenges are signed with (and announce) this key instead: another controller. */
  challengeKey: KeyPair | undefined;
  readonly heartbeatSeconds: number;
  readonly versions: number[] | undefined;
  readonly codes = new Map<string, { allocationId: string }>();
  readonly agents = new Map<string, AgentRecord>();
  readonly connections: HubConnection[] = [];
  /**
   * How far this hub's clock is from the real one: its signing times, challenge and default command
   * deadlines read it. Like a controller that predates `ttl_ms`, the hub sends commands without one.
   */
  clockOffsetMs = 0;
  readonly current = new Map<string, HubConnection>();
  /** Every report frame received, duplicates included, in arrival order. */
  readonly reportLog: Report[] = [];
  /** Reports per frame that carried any, in arrival order (a backlog's batches). */
  readonly reportFrames: number[] = [];
  /** Reports stored by id (insert-or-ignore, as the controller does). */
  readonly reports = new Map<string, Report>();
  readonly acks: string[] = [];
  readonly results: Result[] = [];
  readonly enrolments: MessageBody<'enrol'>[] = [];
  readonly hellos: MessageBody<'hello'>[] = [];
  /** Ids whose report_ack is held back while `withholdAcks` is true. */
  withholdAcks = false;
  #withheld: { conn: HubConnection; ids: string[] }[] = [];
  /** The next handshake is answered with this error instead of welcome. */
  refuseNext: LinkErrorCode | undefined;
  readonly #server: WebSocketServer;
  #port = 0;
  #listening: Promise<void>;

  constructor(options: FakeHubOptions = {}) {
    this.keyPair = options.keyPair ?? generateKeyPair();
    this.heartbeatSeconds = options.heartbeatSeconds ?? 20;
    this.versions = options.versions;
    this.#server = new WebSocketServer({
      host: '127.0.0.1',
      port: options.port ?? 0,
      path: '/agent/v1',
      perMessageDeflate: false,
      autoPong: options.autoPong ?? true,
    });
    this.#listening = new Promise((resolve) => this.#server.once('listening', resolve));
    this.#server.on('connection', (ws) => this.#accept(ws));
  }

  async start(): Promise<this> {
    await this.#listening;
    this.#port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  /** The listening port (kept after stop(), so agents can be pointed at a hub that is down). */
  get port(): number {
    return this.#port;
  }

  /** Controller base URL, as an operator gives it to the agent. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const client of this.#server.clients) client.terminate();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** A fresh one-time enrolment code (returned with a dash, as a person would type it). */
  issueCode(): string {
    const code = randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase();
    this.codes.set(code, { allocationId: randomUUID() });
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  }

  /** Open connections of enrolled agents. */
  get liveConnections(): HubConnection[] {
    return [...this.current.values()].filter((c) => c.ws.readyState === c.ws.OPEN);
  }

  /** Sends a command to the (only or given) connected agent; returns its id. */
  sendCommand(
    command: { name: string; params?: Record<string, unknown>; deadline?: Date; id?: string },
    agentId?: string,
  ): string {
    const conn = this.#connectionOf(agentId);
    const id = command.id ?? randomUUID();
    const deadline = (command.deadline ?? new Date(Date.now() + this.clockOffsetMs + 60_000)).toISOString();
    conn.send('command', { id, name: command.name, params: command.params ?? {}, deadline });
    return id;
  }

  /** Cuts every connection without a close handshake. */
  dropAll(): void {
    for (const conn of this.connections) conn.ws.terminate();
  }

  /** Sends the withheld report_acks and goes back to acking at once. */
  releaseAcks(): void {
    this.withholdAcks = false;
    for (const { conn, ids } of this.#withheld.splice(0)) {
      if (conn.ws.readyState === conn.ws.OPEN) conn.send('report_ack', { ids });
    }
  }

  revoke(agentId: string): void {
    const agent = this.agents.get(agentId);
    if (agent) agent.revoked = true;
  }

  /** Polls until `check` is true (or throws after `timeoutMs`). */
  async waitFor(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > until) throw new Error(`fake hub: timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  #connectionOf(agentId?: string): HubConnection {
    const conn = agentId === undefined ? this.liveConnections[0] : this.current.get(agentId);
    if (conn === undefined) throw new Error('fake hub: no connected agent');
    return conn;
  }

  #accept(ws: WebSocket): void {
    const signing = this.challengeKey ?? this.keyPair;
    const conn = new HubConnection(ws, signing.secretKey, this.clockOffsetMs);
    this.connections.push(conn);
    ws.on('error', () => undefined);
    conn.send('challenge', {
      nonce: conn.sid,
      controller_key: signing.publicKey,
      server_time: new Date(Date.now() + this.clockOffsetMs).toISOString(),
      ...(this.versions ? { versions: this.versions } : {}),
    });
    ws.on('message', (raw: RawFrame) => {
      try {
        if (conn.agentId === undefined) this.#handshake(conn, raw);
        else this.#onMessage(conn, raw);
      } catch (err) {
        conn.refuse('BAD_MESSAGE', (err as Error).message);
      }
    });
  }

  #handshake(conn: HubConnection, raw: RawFrame): void {
    const peek = parseEnvelopeUnverified(raw, { sid: conn.sid, expect: ['enrol', 'hello'], from: 'agent' });
    conn.version = peek.v;
    if (this.refuseNext !== undefined) {
      const code = this.refuseNext;
      this.refuseNext = undefined;
      conn.refuse(code, 'refused by the test');
      return;
    }
    if (peek.type === 'enrol') {
      const env = openEnvelope(raw, { publicKey: peek.body.agent_key, sid: conn.sid, expect: ['enrol'] });
      conn.guard.accept(env.seq);
      const code = normaliseEnrolCode(env.body.code);
      const slot = this.codes.get(code);
      if (slot === undefined) return conn.refuse('ENROL_CODE_INVALID', 'unknown, expired or used code');
      this.codes.delete(code);
      this.enrolments.push(env.body);
      const agentId = randomUUID();
      this.agents.set(agentId, {
        publicKey: env.body.agent_key,
        allocationId: slot.allocationId,
        revoked: false,
      });
      this.#welcome(conn, agentId, slot.allocationId, env.body.session_key);
      return;
    }
    const agent = this.agents.get(peek.body.agent_id);
    if (agent === undefined) return conn.refuse('AGENT_UNKNOWN', 'no such agent');
    const env = openEnvelope(raw, { publicKey: agent.publicKey, sid: conn.sid, expect: ['hello'] });
    conn.guard.accept(env.seq);
    if (agent.revoked) return conn.refuse('AGENT_REVOKED', 'revoked');
    this.hellos.push(env.body);
    this.#welcome(conn, env.body.agent_id, agent.allocationId, env.body.session_key);
  }

  #welcome(conn: HubConnection, agentId: string, allocationId: string, agentSessionKey?: string): void {
    let keys: SessionKeys | undefined;
    let sessionKey: string | undefined;
    if (conn.version >= SEALED_VERSION) {
      const own = generateEphemeralKeyPair();
      sessionKey = own.publicKey;
      keys = deriveSessionKeys({
        role: 'controller',
        sid: conn.sid,
        own,
        peerPublicKey: agentSessionKey ?? '',
        agentKey: this.agents.get(agentId)!.publicKey,
        controllerKey: this.keyPair.publicKey,
      });
    }
    const previous = this.current.get(agentId);
    if (previous !== undefined && previous !== conn)
      previous.refuse('SESSION_REPLACED', 'a newer connection took over');
    conn.agentId = agentId;
    this.current.set(agentId, conn);
    conn.send('welcome', {
      agent_id: agentId,
      allocation_id: allocationId,
      controller_key: this.keyPair.publicKey,
      heartbeat_seconds: this.heartbeatSeconds,
      ...(sessionKey ? { session_key: sessionKey } : {}),
    });
    conn.keys = keys;
  }

  #onMessage(conn: HubConnection, raw: RawFrame): void {
    const agent = this.agents.get(conn.agentId as string) as AgentRecord;
    const env = conn.keys
      ? openFrame(raw, { keys: conn.keys, from: 'agent', maxBytes: 64 * 1024 * 1024 })
      : openEnvelope(raw, { publicKey: agent.publicKey, sid: conn.sid, from: 'agent' });
    conn.guard.accept(env.seq);
    const messages = messagesOf(env);
    const reports = messages.filter((m) => m.type === 'report').length;
    if (reports > 0) this.reportFrames.push(reports);
    for (const message of messages) this.#onOne(conn, message);
  }

  #onOne(conn: HubConnection, message: ReturnType<typeof messagesOf>[number]): void {
    conn.received.push({ type: message.type, body: message.body });
    switch (message.type) {
      case 'ack':
        this.acks.push(message.body.id);
        break;
      case 'result':
        this.results.push(message.body);
        break;
      case 'report': {
        this.reportLog.push(message.body);
        if (!this.reports.has(message.body.id)) this.reports.set(message.body.id, message.body);
        const ids = [message.body.id];
        if (this.withholdAcks) this.#withheld.push({ conn, ids });
        else conn.send('report_ack', { ids });
        break;
      }
      case 'ping':
        conn.send('pong', { t: message.body.t });
        break;
      default:
        break;
    }
  }
}
