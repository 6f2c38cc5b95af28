// Byte streams over one agent link (version 3): the controller asks the agent to open a TCP
// connection to its router's port, then both ends move bytes as `stream_data`, each sending only
// what the other granted (`stream_credit`). A stream is a Node Duplex, so an HTTP client or a
// pipe uses it like a socket and its backpressure reaches the far end: the browser waits for the
// device, and a slow browser pauses the device's socket on the agent.
import { Duplex } from 'node:stream';
import {
  STREAM_CHUNK_BYTES,
  STREAM_CREDIT_DIVISOR,
  STREAM_EARLY_BYTES,
  STREAM_LARGE_CHUNK_BYTES,
  streamDataBytes,
  type MessageBody,
  type MessageOf,
} from '../../protocol/index.js';
import { newId } from '../core/ids.js';

/** Bytes this end may hold for one stream before it has passed them on. */
export const CONTROLLER_STREAM_WINDOW = 512 * 1024;
// Credit goes back once a quarter window is owed, not per chunk: the agent still has 3/4 of its
// window to send meanwhile, so it never waits for it, and a small answer costs no credit frame.
const CREDIT_STEP = CONTROLLER_STREAM_WINDOW / STREAM_CREDIT_DIVISOR;
const OPEN_TIMEOUT_MS = 15_000;

export type StreamSend = <T extends 'stream_open' | 'stream_data' | 'stream_credit' | 'stream_close'>(
  type: T,
  body: MessageBody<T>,
) => void;

export type AgentStreamMessage = MessageOf<
  'stream_opened' | 'stream_data' | 'stream_credit' | 'stream_close'
>;

/** Why a stream could not be opened: `refused`/`timeout` from the agent, `closed` when the link went. */
export class StreamOpenError extends Error {
  constructor(
    readonly reason: 'refused' | 'timeout' | 'error' | 'end' | 'closed',
    message: string,
  ) {
    super(message);
  }
}

export class RelayStream extends Duplex {
  // Before `stream_opened`, what the agent buffers while it connects (the request goes at once).
  #credit = STREAM_EARLY_BYTES;
  /** Bytes received, not yet granted back (fewer than a step, or the reader is behind). */
  #owed = 0;
  #pending: { chunk: Buffer; at: number; cb: (err?: Error | null) => void } | undefined;
  #closedByPeer = false;
  /** Idle time after which 'timeout' is emitted (0: never), as `net.Socket#setTimeout`. */
  timeout = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  #lastActive = 0;

  constructor(
    readonly id: string,
    private readonly mux: StreamMux,
  ) {
    super({ allowHalfOpen: false });
    // a stream that fails before anyone reads it (refused at opening, link gone) must not throw
    this.on('error', () => undefined);
  }

  /** The agent is connected to the router: it may receive `window` bytes (early ones included). */
  opened(window: number): void {
    this.credit(Math.max(0, window - STREAM_EARLY_BYTES));
  }

  credit(bytes: number): void {
    this.#credit += bytes;
    const pending = this.#pending;
    if (pending) {
      this.#pending = undefined;
      this.#sendFrom(pending.chunk, pending.at, pending.cb);
    }
  }

  data(bytes: Buffer): void {
    this.#touch();
    this.#owed += bytes.length;
    // when the reader is behind, `_read` grants once it has caught up
    if (this.push(bytes)) this.#grant();
  }

  #grant(): void {
    if (this.#owed < CREDIT_STEP) return;
    this.mux.send('stream_credit', { id: this.id, bytes: this.#owed });
    this.#owed = 0;
  }

  peerClosed(reason: MessageBody<'stream_close'>['reason'], message?: string): void {
    this.#closedByPeer = true;
    if (reason === 'end') this.push(null);
    else this.destroy(new StreamOpenError(reason, message ?? reason));
  }

  override _read(): void {
    this.#grant();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.#touch();
    this.#sendFrom(chunk, 0, cb);
  }

  // Writes queued meanwhile (an HTTP client's head and body of one tick, a body written while the
  // agent's credit ran out) leave together: one frame per chunk size instead of one per write.
  override _writev(
    chunks: Array<{ chunk: Buffer; encoding: BufferEncoding }>,
    cb: (err?: Error | null) => void,
  ): void {
    this.#touch();
    const whole = chunks.length === 1 ? chunks[0]!.chunk : Buffer.concat(chunks.map((c) => c.chunk));
    this.#sendFrom(whole, 0, cb);
  }

  // What an HTTP client's keep-alive pool (node:http Agent) asks of a socket: an idle timeout that
  // really fires (it closes a pooled stream nobody used for that long); the rest has no meaning on
  // a stream of the link (no TCP options, nothing that holds the event loop).
  setTimeout(ms: number, callback?: () => void): this {
    // as a socket: 0 takes the callback off again, which HTTP clients rely on
    if (callback) {
      if (ms === 0) this.off('timeout', callback);
      else this.once('timeout', callback);
    }
    this.timeout = ms;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.#touch();
    return this;
  }

  // Activity: the idle time starts again. As with a socket, 'timeout' comes once per idle spell.
  #touch(): void {
    this.#lastActive = performance.now();
    if (this.timeout > 0 && !this.#idleTimer && !this.destroyed) this.#armIdle(this.timeout);
  }

  #armIdle(delay: number): void {
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.timeout <= 0) return;
      const idle = performance.now() - this.#lastActive;
      if (idle >= this.timeout) this.emit('timeout');
      // active meanwhile: wait for the rest of the idle time only (one timer, not one per chunk)
      else this.#armIdle(this.timeout - idle);
    }, delay);
    this.#idleTimer.unref();
  }

  setKeepAlive(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  #sendFrom(chunk: Buffer, from: number, cb: (err?: Error | null) => void): void {
    let at = from;
    const most = this.mux.largeChunks ? STREAM_LARGE_CHUNK_BYTES : STREAM_CHUNK_BYTES;
    while (at < chunk.length && this.#credit > 0) {
      const part = chunk.subarray(at, at + Math.min(most, this.#credit));
      this.mux.send('stream_data', { id: this.id, data: this.mux.rawBytes ? part : part.toString('base64') });
      this.#credit -= part.length;
      at += part.length;
    }
    // the agent has not taken what it was sent: the writer waits (backpressure)
    if (at < chunk.length) this.#pending = { chunk, at, cb };
    else cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    clearTimeout(this.#idleTimer);
    if (!this.#closedByPeer) {
      this.mux.send('stream_close', { id: this.id, reason: err ? 'error' : 'end' });
    }
    this.mux.forget(this.id);
    cb(err);
  }
}

/** The streams of one agent session. */
export class StreamMux {
  readonly #streams = new Map<string, RelayStream>();
  /** Streams not yet answered by the agent: what stops their opening timer. */
  readonly #opening = new Map<string, () => void>();
  /** The agent reads raw stream bytes (its hello named `STREAM_BYTES_FEATURE`); else base64. */
  rawBytes = false;
  /** The agent reads raw chunks up to `STREAM_LARGE_CHUNK_BYTES` (it named `STREAM_LARGE_FEATURE`). */
  largeChunks = false;

  constructor(readonly send: StreamSend) {}

  get size(): number {
    return this.#streams.size;
  }

  /**
   * A stream to the router's `port`, usable at once: its first `STREAM_EARLY_BYTES` leave with the
   * `stream_open`, the rest once the agent says it is connected. A refusal (or no answer in time)
   * destroys the stream with a StreamOpenError.
   */
  open(port: number): RelayStream {
    const id = newId();
    const stream = new RelayStream(id, this);
    this.#streams.set(id, stream);
    const timer = setTimeout(() => {
      this.#opening.delete(id);
      stream.destroy(new StreamOpenError('timeout', 'the agent did not open the stream in time'));
    }, OPEN_TIMEOUT_MS);
    timer.unref();
    this.#opening.set(id, () => clearTimeout(timer));
    this.send('stream_open', { id, port, window: CONTROLLER_STREAM_WINDOW });
    return stream;
  }

  receive(message: AgentStreamMessage): void {
    const stream = this.#streams.get(message.body.id);
    if (!stream) return;
    switch (message.type) {
      case 'stream_opened':
        this.#settled(stream.id);
        stream.opened(message.body.window);
        return;
      case 'stream_data':
        stream.data(streamDataBytes(message.body));
        return;
      case 'stream_credit':
        stream.credit(message.body.bytes);
        return;
      case 'stream_close':
        this.#settled(stream.id);
        stream.peerClosed(message.body.reason, message.body.message);
        return;
    }
  }

  forget(id: string): void {
    this.#settled(id);
    this.#streams.delete(id);
  }

  #settled(id: string): void {
    this.#opening.get(id)?.();
    this.#opening.delete(id);
  }

  /** The link is gone: every stream ends with an error. */
  closeAll(): void {
    for (const stop of this.#opening.values()) stop();
    this.#opening.clear();
    for (const stream of this.#streams.values()) stream.peerClosed('error', 'the agent link closed');
    this.#streams.clear();
  }
}
