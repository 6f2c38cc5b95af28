// Byte streams the controller asks for (its relay to a client's device behind the router): each
// `stream_open` is a TCP connection from the agent to the router's own address on a dst-nat port,
// which the router forwards to the device. Bytes travel as `stream_data`, and each side sends only
// as much as the other has granted (`stream_credit`): a slow reader pauses the sender's socket, so
// neither end buffers more than a window per stream whatever the device or the browser does.
// The router's bytes are read into buffers that leave room for a frame's head before them: a full
// read becomes a sealed frame where it lies (no copy), up to 256 KiB to a controller that reads
// that much (`STREAM_LARGE_FEATURE`), so a megabyte costs a few frames instead of sixteen.
import { connect, type Socket } from 'node:net';
import {
  STREAM_CHUNK_BYTES,
  STREAM_CREDIT_DIVISOR,
  STREAM_FRAME_ROOM,
  STREAM_LARGE_CHUNK_BYTES,
  streamDataBytes,
  type MessageBody,
  type MessageOf,
} from '../../protocol/index.js';
import type { StreamMessageType } from './link-session.js';

/** Bytes the agent may hold for one stream before the controller has written them on. */
export const STREAM_WINDOW = 512 * 1024;
// Credit goes back once a quarter window is owed, not per chunk: the controller still has 3/4 of
// the window meanwhile, so it never waits for it, and a small request costs no credit frame.
const CREDIT_STEP = STREAM_WINDOW / STREAM_CREDIT_DIVISOR;
/**
 * Streams one link may carry at once; more are refused. With the window each way, at most 16 MiB
 * of stream bytes in the agent (a browser opens ~6 connections per host).
 */
export const MAX_STREAMS = 16;
const CONNECT_TIMEOUT_MS = 10_000;
// A stream's first read buffer: a small answer never makes it hold a large one. Each read that
// fills it doubles the next, up to the chunk size the controller reads.
const FIRST_READ_BYTES = 16 * 1024;

type Send = <T extends 'stream_opened' | 'stream_data' | 'stream_credit' | 'stream_close'>(
  type: T,
  body: MessageBody<T>,
) => Promise<boolean>;

interface Stream {
  socket: Socket;
  /** Bytes the controller will still take. */
  credit: number;
  /** Bytes of the controller the router's socket took, not yet granted back. */
  owed: number;
  open: boolean;
}

export interface StreamDialerOptions {
  /** The router's address, as the agent reaches its API. */
  host: string;
  send: Send;
  /** Whether the controller reads raw stream bytes (its welcome named `STREAM_BYTES_FEATURE`). */
  rawBytes: () => boolean;
  /** Whether it reads raw chunks up to `STREAM_LARGE_CHUNK_BYTES` (it named `STREAM_LARGE_FEATURE`). */
  largeChunks: () => boolean;
  /**
   * Sends raw stream bytes that lie in `buffer` from `at`, after `STREAM_FRAME_ROOM` free bytes,
   * framed where they lie (`LinkSession#sendStreamData`); the buffer is the link's from then on.
   */
  sendBytes: (id: string, buffer: Buffer, at: number, length: number) => Promise<boolean>;
  logger: { debug(obj: object, msg?: string): void };
}

export class StreamDialer {
  readonly #streams = new Map<string, Stream>();

  constructor(private readonly options: StreamDialerOptions) {}

  get size(): number {
    return this.#streams.size;
  }

  receive(message: MessageOf<StreamMessageType>): void {
    switch (message.type) {
      case 'stream_open':
        return this.#open(message.body);
      case 'stream_data': {
        const stream = this.#streams.get(message.body.id);
        if (!stream) return;
        const { id } = message.body;
        const bytes = streamDataBytes(message.body);
        // Credit back once the router's socket took the bytes: the controller never runs ahead of it.
        // Bytes sent before the connection is up wait in the socket (the controller's early bytes).
        stream.socket.write(bytes, (err) => {
          if (err) return;
          stream.owed += bytes.length;
          if (stream.owed < CREDIT_STEP || this.#streams.get(id) !== stream) return;
          void this.options.send('stream_credit', { id, bytes: stream.owed });
          stream.owed = 0;
        });
        return;
      }
      case 'stream_credit': {
        const stream = this.#streams.get(message.body.id);
        if (!stream) return;
        stream.credit += message.body.bytes;
        if (stream.credit > 0 && stream.open) stream.socket.resume();
        return;
      }
      case 'stream_close': {
        const stream = this.#streams.get(message.body.id);
        if (!stream) return;
        this.#streams.delete(message.body.id);
        if (message.body.reason === 'end') stream.socket.end();
        else stream.socket.destroy();
        return;
      }
    }
  }

  /** The link is gone: every stream with it (the controller's side is gone too). */
  closeAll(): void {
    for (const stream of this.#streams.values()) stream.socket.destroy();
    this.#streams.clear();
  }

  #open(body: MessageBody<'stream_open'>): void {
    const { id } = body;
    if (this.#streams.has(id)) return;
    if (this.#streams.size >= MAX_STREAMS) {
      void this.options.send('stream_close', { id, reason: 'refused', message: 'too many streams' });
      return;
    }
    // the controller's reading, as its welcome said: the same for the stream's whole life
    const raw = this.options.rawBytes();
    const most = raw && this.options.largeChunks() ? STREAM_LARGE_CHUNK_BYTES : STREAM_CHUNK_BYTES;
    let size = Math.min(FIRST_READ_BYTES, most);
    let buffer = Buffer.allocUnsafeSlow(STREAM_FRAME_ROOM + size);
    const onRead = (n: number): boolean => {
      if (!raw) {
        const data = buffer.toString('base64', STREAM_FRAME_ROOM, STREAM_FRAME_ROOM + n);
        void this.options.send('stream_data', { id, data });
      } else if (n >= size / 2) {
        // framed where it lies; the next read gets a new buffer, twice as large after a full one
        void this.options.sendBytes(id, buffer, STREAM_FRAME_ROOM, n);
        if (n === size) size = Math.min(2 * size, most);
        buffer = Buffer.allocUnsafeSlow(STREAM_FRAME_ROOM + size);
      } else {
        // a short read: one copy into a frame of its size, and the buffer is read into again
        const frame = Buffer.allocUnsafe(STREAM_FRAME_ROOM + n);
        buffer.copy(frame, STREAM_FRAME_ROOM, STREAM_FRAME_ROOM, STREAM_FRAME_ROOM + n);
        void this.options.sendBytes(id, frame, STREAM_FRAME_ROOM, n);
      }
      stream.credit -= n;
      // out of credit: reading stops until the controller grants more (`stream_credit`)
      return stream.credit > 0;
    };
    const socket = connect({
      host: this.options.host,
      port: body.port,
      timeout: CONNECT_TIMEOUT_MS,
      onread: { buffer: () => buffer.subarray(STREAM_FRAME_ROOM), callback: onRead },
    });
    socket.setNoDelay(true);
    const stream: Stream = { socket, credit: body.window, owed: 0, open: false };
    this.#streams.set(id, stream);
    let closed = false;
    const close = (reason: MessageBody<'stream_close'>['reason'], message?: string) => {
      if (closed) return;
      closed = true;
      if (this.#streams.get(id) === stream) {
        this.#streams.delete(id);
        void this.options.send('stream_close', { id, reason, ...(message ? { message } : {}) });
      }
      socket.destroy();
    };
    socket.once('connect', () => {
      stream.open = true;
      socket.setTimeout(0);
      void this.options.send('stream_opened', { id, window: STREAM_WINDOW });
    });
    socket.once('timeout', () => close('timeout', 'no connection to the router in time'));
    socket.once('end', () => close('end'));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      close(stream.open ? 'error' : 'refused', err.code ?? err.message),
    );
    socket.once('close', () => close('end'));
    this.options.logger.debug({ stream: id, port: body.port }, 'stream opened to the router');
  }
}
