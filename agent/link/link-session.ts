// One authenticated connection, after the handshake: signs what the agent sends, verifies and
// sequence-checks what the controller sends, and keeps the connection honest with ws pings.
// In protocol version 2 an ack waits up to ACK_HOLD_MS for the next message (usually the command's
// result) and goes out with it in one signed batch: one signature here and one verification and
// one database write at the controller, instead of two each. In version 3 frames are sealed with
// the session keys (a MAC per frame, bulk payloads compressed) instead of signed.
import type WebSocket from 'ws';
import {
  commandTtlMs,
  COMPRESS_FROM_BYTES,
  encodeEnvelope,
  isBatchableType,
  MAX_BATCH_MESSAGES,
  messagesOf,
  openEnvelope,
  openFrame,
  ProtocolError,
  sealFrame,
  sealStreamDataInPlace,
  signEnvelope,
  signingKey,
  verifyingKey,
} from '../../protocol/index.js';
import type {
  BatchedMessage,
  MessageBody,
  MessageOf,
  MessageType,
  RawFrame,
  SequenceCounter,
  SequenceGuard,
  SessionKeys,
  SigningKey,
  VerifyingKey,
} from '../../protocol/index.js';
import { controllerRefusal, LinkError } from './link-error.js';
import { monotonicMs } from '../../protocol/monotonic-time.js';

/** Messages the controller sends after the handshake (a batch's are handed over one by one). */
export type ControllerMessage = MessageOf<
  'command' | 'report_ack' | 'ping' | 'pong' | 'error' | 'radius' | StreamMessageType
>;

/** The byte-stream messages the controller sends (version 3). */
export type StreamMessageType = 'stream_open' | 'stream_data' | 'stream_credit' | 'stream_close';

/**
 * Longest time an ack waits for company. The command is already journalled (that is what the ack
 * says), so holding it risks nothing: if the link drops first, the controller re-sends the command
 * and the journal answers. Long enough to cover a quick command's journal writes and router call.
 */
export const ACK_HOLD_MS = 50;

/** How a session ended: the websocket close, and the error that caused it when there was one. */
export interface SessionEnd {
  closeCode: number;
  error: LinkError;
}

export interface LinkSessionOptions {
  ws: WebSocket;
  /** Session id (the challenge nonce). */
  sid: string;
  /** The controller key frames must be signed with. */
  controllerKey: string;
  /** The agent's secret key (signs every frame it sends). */
  secretKey: string;
  /** Welcome of this session. */
  welcome: MessageBody<'welcome'>;
  /** Guard and counter already used by the handshake (the challenge was seq 1; our enrol/hello was 1). */
  guard: SequenceGuard;
  counter: SequenceCounter;
  /** Protocol version the handshake settled (default 1). */
  version?: number;
  /** Version 3: the session keys; every frame is sealed with them instead of signed. */
  keys?: SessionKeys;
  /** Largest frame accepted from the controller, which also caps a compressed frame once inflated. */
  maxPayloadBytes?: number;
  /** Overrides `welcome.heartbeat_seconds` (tests). */
  heartbeatMs?: number;
  /**
   * Version 3 frames to the controller: a payload of this many bytes or more is deflated when that
   * makes it smaller (default `COMPRESS_FROM_BYTES`; Infinity: never). Decided per frame by each end.
   */
  compressFrom?: number;
  now?: () => Date;
}

// The agent's default frame limit (`openLink`'s), which also caps an inflated payload.
const DEFAULT_MAX_PAYLOAD = 16 * 1024 * 1024;

/** Silence longer than this many heartbeats ends the connection. */
export const SILENCE_HEARTBEATS = 2.5;

/**
 * A device's bytes (`stream_data`) are not compressed by the link: much is compressed already
 * (images, gzip, TLS), and deflating the rest cost more time than the link saved (bench:relay).
 */
export const STREAM_COMPRESS_FROM = Number.POSITIVE_INFINITY;

/** Close codes the agent uses (4000–4999 are free for applications). */
export const CLOSE_NORMAL = 1000;
export const CLOSE_POLICY = 1008;
export const CLOSE_HEARTBEAT = 4000;

const CONTROLLER_TYPES: readonly MessageType[] = [
  'command',
  'report_ack',
  'ping',
  'pong',
  'error',
  'radius',
  'stream_open',
  'stream_data',
  'stream_credit',
  'stream_close',
  'batch',
];

export class LinkSession {
  readonly sid: string;
  readonly welcome: MessageBody<'welcome'>;
  /** Resolves once when the connection is over, whatever ended it. */
  readonly ended: Promise<SessionEnd>;
  /** When the session opened, on the monotonic timer (`monotonicMs()`): for durations only. */
  readonly connectedAt: number;
  readonly #ws: WebSocket;
  readonly #options: LinkSessionOptions;
  readonly #heartbeatMs: number;
  readonly #version: number;
  /** Signed sessions only (versions 1 and 2): sealed ones need nothing but the session keys. */
  readonly #signingKey: SigningKey | undefined;
  readonly #controllerKey: VerifyingKey | undefined;
  /** Acks waiting for the next message (version 2), and the timer that sends them alone. */
  #heldAcks: BatchedMessage[] = [];
  #ackTimer: NodeJS.Timeout | undefined;
  #handler: ((message: ControllerMessage) => void) | undefined;
  readonly #queued: ControllerMessage[] = [];
  #error: LinkError | undefined;
  #pingTimer: NodeJS.Timeout | undefined;
  #silenceTimer: NodeJS.Timeout | undefined;

  constructor(options: LinkSessionOptions) {
    this.#options = options;
    this.#ws = options.ws;
    this.sid = options.sid;
    this.welcome = options.welcome;
    this.connectedAt = monotonicMs();
    this.#heartbeatMs = options.heartbeatMs ?? options.welcome.heartbeat_seconds * 1000;
    this.#version = options.version ?? 1;
    if (options.keys === undefined) {
      this.#signingKey = signingKey(options.secretKey);
      this.#controllerKey = verifyingKey(options.controllerKey);
    }
    this.ended = new Promise<SessionEnd>((resolve) => {
      this.#ws.once('close', (closeCode: number, reason: Buffer) => {
        this.#stopTimers();
        const error =
          this.#error ??
          new LinkError('CLOSED', `link closed (${closeCode} ${reason.toString()})`.trim(), 'network');
        resolve({ closeCode, error });
      });
    });
    this.#ws.on('message', (data: RawFrame) => this.#onFrame(data));
    this.#ws.on('pong', () => this.#alive());
    this.#ws.on('ping', () => this.#alive());
    this.#ws.on('error', (err: Error) => {
      this.#error ??= new LinkError('CLOSED', `link error: ${err.message}`, 'network', { cause: err });
    });
    this.#alive();
    this.#pingTimer = setInterval(() => {
      if (this.isOpen) this.#ws.ping();
    }, this.#heartbeatMs);
    this.#pingTimer.unref();
  }

  /** Protocol version of this connection, as the handshake settled it. */
  get version(): number {
    return this.#version;
  }

  /** True while frames can be sent. */
  get isOpen(): boolean {
    return this.#ws.readyState === this.#ws.OPEN;
  }

  /**
   * Starts delivering the controller's messages. Frames that came before (the controller may
   * re-send commands right after welcome) are delivered first, in order.
   */
  listen(handler: (message: ControllerMessage) => void): void {
    this.#handler = handler;
    for (const message of this.#queued.splice(0)) handler(message);
  }

  /**
   * Signs and sends one message. Resolves true once the frame is handed to the socket, false when
   * the connection is gone (the caller keeps what it must re-send: outbox, journal). In version 2
   * an `ack` resolves true at once and is held (ACK_HOLD_MS) to travel with the next message: an
   * ack never needs re-sending, since a lost one only makes the controller re-send the command.
   */
  send<T extends MessageType>(type: T, body: MessageBody<T>): Promise<boolean> {
    if (!this.isOpen) return Promise.resolve(false);
    if (this.#version >= 2 && type === 'ack') {
      this.#heldAcks.push({ type: 'ack', body: body as MessageBody<'ack'> });
      this.#ackTimer ??= setTimeout(() => void this.#flushAcks(), ACK_HOLD_MS);
      return Promise.resolve(true);
    }
    const held = this.#takeAcks();
    if (held.length > 0) {
      if (isBatchableType(type)) {
        return this.#write('batch', { messages: [...held, { type, body } as BatchedMessage] });
      }
      void this.#write('batch', { messages: held });
    }
    return this.#write(type, body);
  }

  /**
   * Sends `length` bytes of a stream that lie in `buffer` from `at`, with `STREAM_FRAME_ROOM` free
   * bytes before them: the sealed frame is built around them (`sealStreamDataInPlace`), without a
   * copy, and the buffer is the socket's from then on. For a controller that reads raw stream bytes;
   * streams exist only in sealed sessions (false otherwise, as when the connection is gone).
   */
  sendStreamData(id: string, buffer: Buffer, at: number, length: number): Promise<boolean> {
    const { keys } = this.#options;
    if (!this.isOpen || keys === undefined) return Promise.resolve(false);
    // held acks go first, as before any message that cannot join their batch
    const held = this.#takeAcks();
    if (held.length > 0) void this.#write('batch', { messages: held });
    const frame = sealStreamDataInPlace(id, buffer, at, length, {
      keys,
      seq: this.#options.counter.next(),
      ...(this.#options.now ? { now: this.#options.now() } : {}),
    });
    return new Promise((resolve) => {
      this.#ws.send(frame, (err) => resolve(err === undefined || err === null));
    });
  }

  /**
   * Sends reports (an outbox's backlog): from version 2, in one batch (with any held acks); one
   * frame each before. Resolves as `send` does, true once every frame is handed to the socket.
   */
  async sendReports(reports: readonly MessageBody<'report'>[]): Promise<boolean> {
    if (reports.length === 1 || this.#version < 2) {
      for (const report of reports) if (!(await this.send('report', report))) return false;
      return true;
    }
    if (!this.isOpen) return false;
    let held = this.#takeAcks();
    const messages = reports.map((body): BatchedMessage => ({ type: 'report', body }) as BatchedMessage);
    if (held.length + messages.length > MAX_BATCH_MESSAGES) {
      void this.#write('batch', { messages: held });
      held = [];
    }
    return this.#write('batch', { messages: [...held, ...messages] });
  }

  #takeAcks(): BatchedMessage[] {
    if (this.#ackTimer !== undefined) clearTimeout(this.#ackTimer);
    this.#ackTimer = undefined;
    return this.#heldAcks.splice(0);
  }

  #flushAcks(): Promise<boolean> {
    const held = this.#takeAcks();
    if (held.length === 0 || !this.isOpen) return Promise.resolve(false);
    return held.length === 1
      ? this.#write('ack', held[0]!.body as MessageBody<'ack'>)
      : this.#write('batch', { messages: held });
  }

  #write<T extends MessageType>(type: T, body: MessageBody<T>): Promise<boolean> {
    const { keys } = this.#options;
    if (keys) {
      const frame = sealFrame(type, body as never, {
        keys,
        seq: this.#options.counter.next(),
        compressFrom:
          type === 'stream_data' ? STREAM_COMPRESS_FROM : (this.#options.compressFrom ?? COMPRESS_FROM_BYTES),
        ...(this.#options.now ? { now: this.#options.now() } : {}),
      });
      return new Promise((resolve) => {
        this.#ws.send(frame, (err) => resolve(err === undefined || err === null));
      });
    }
    const envelope = signEnvelope(type, body as never, {
      sid: this.sid,
      seq: this.#options.counter.next(),
      secretKey: this.#signingKey!,
      v: this.#version,
      ...(this.#options.now ? { now: this.#options.now() } : {}),
    });
    return new Promise((resolve) => {
      this.#ws.send(encodeEnvelope(envelope), (err) => resolve(err === undefined || err === null));
    });
  }

  /** Ends the connection, recording why. */
  close(error?: LinkError, closeCode = CLOSE_NORMAL): void {
    if (error !== undefined) this.#error ??= error;
    this.#stopTimers();
    if (this.#ws.readyState === this.#ws.CLOSED) return;
    if (this.#ws.readyState === this.#ws.CONNECTING) {
      this.#ws.terminate();
      return;
    }
    this.#ws.close(closeCode, (error?.code ?? 'bye').slice(0, 100));
    // A peer that never answers the close handshake must not hold the session open.
    setTimeout(() => this.#ws.terminate(), 2000).unref();
  }

  #onFrame(raw: RawFrame): void {
    this.#alive();
    let messages: readonly ControllerMessage[];
    let signedAt: string;
    try {
      const expect = CONTROLLER_TYPES as (ControllerMessage['type'] | 'batch')[];
      const { keys } = this.#options;
      const envelope = keys
        ? openFrame(raw, {
            keys,
            expect,
            from: 'controller',
            maxBytes: this.#options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD,
          })
        : openEnvelope(raw, {
            publicKey: this.#controllerKey!,
            sid: this.sid,
            expect,
            from: 'controller',
            version: this.#version,
          });
      this.#options.guard.accept(envelope.seq);
      messages = messagesOf(envelope) as readonly ControllerMessage[];
      signedAt = envelope.ts;
    } catch (err) {
      // A signed frame of a newer type is not an attack: ignore it rather than drop the link.
      if (err instanceof ProtocolError && err.code === 'UNKNOWN_TYPE') return;
      const code = err instanceof ProtocolError ? err.code : 'BAD_MESSAGE';
      this.close(
        new LinkError(code, `refused a controller frame: ${(err as Error).message}`, 'agent'),
        CLOSE_POLICY,
      );
      return;
    }
    for (const message of messages) {
      if (message.type === 'error') {
        // Verified, so it may be final (AGENT_REVOKED); the controller closes the socket next.
        this.#error ??= controllerRefusal(message.body.code, message.body.message);
        this.close();
        return;
      }
      if (message.type === 'command') {
        // Every command leaves here with its time to live, which the agent counts from receipt on its
        // monotonic clock; a controller that predates `ttl_ms` has its deadline read against its own `ts`.
        message.body.ttl_ms = commandTtlMs(message.body, signedAt);
      }
      if (this.#handler === undefined) this.#queued.push(message);
      else this.#handler(message);
    }
  }

  // Any frame, ping or pong from the controller proves it is alive.
  #alive(): void {
    if (!this.isOpen) return;
    if (this.#silenceTimer !== undefined) clearTimeout(this.#silenceTimer);
    this.#silenceTimer = setTimeout(() => {
      this.#error ??= new LinkError(
        'HEARTBEAT_TIMEOUT',
        `controller silent for ${SILENCE_HEARTBEATS} heartbeats (${(this.#heartbeatMs * SILENCE_HEARTBEATS) / 1000} s)`,
        'agent',
      );
      this.#stopTimers();
      this.#ws.terminate();
    }, this.#heartbeatMs * SILENCE_HEARTBEATS);
    this.#silenceTimer.unref();
  }

  #stopTimers(): void {
    if (this.#ackTimer !== undefined) clearTimeout(this.#ackTimer);
    this.#ackTimer = undefined;
    if (this.#pingTimer !== undefined) clearInterval(this.#pingTimer);
    if (this.#silenceTimer !== undefined) clearTimeout(this.#silenceTimer);
    this.#pingTimer = undefined;
    this.#silenceTimer = undefined;
  }
}
