// A text message framed once (WebSocket header and payload in one buffer) and written as is to
// every socket that takes it: a fan-out to thousands of sockets then costs one write of a shared
// buffer per socket, instead of framing, allocating and a two-buffer writev each.
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';

export interface PrebuiltFrame {
  /** The message as `ws.send` takes it (used where the frame cannot be written directly). */
  readonly payload: Buffer;
  /** The unmasked, final, text frame: header and payload. */
  readonly frame: Buffer;
}

// `ws` exposes its Sender class (and its static framer) at runtime; its type package does not.
interface SenderStatics {
  frame(
    data: Buffer,
    options: { fin: boolean; opcode: number; mask: boolean; readOnly: boolean; rsv1: boolean },
  ): Buffer[];
}

/** Frames a text message once, as `ws`'s own sender frames it for a server socket. */
export function prebuildTextFrame(payload: Buffer): PrebuiltFrame {
  const parts = (WebSocket as unknown as { Sender: SenderStatics }).Sender.frame(payload, {
    fin: true,
    opcode: 1,
    mask: false,
    readOnly: true,
    rsv1: false,
  });
  return { payload, frame: parts.length === 1 ? parts[0]! : Buffer.concat(parts) };
}

/**
 * Sends the message on an open socket. Without a negotiated extension (no per-message deflate)
 * `ws` frames synchronously and keeps no queue of its own, so writing the ready frame to the
 * underlying socket puts the same bytes on the wire, in the same order among this socket's
 * messages; otherwise (or should `ws` stop exposing its socket) it goes through `ws.send`.
 */
export function sendPrebuilt(ws: WebSocket, message: PrebuiltFrame): void {
  if (ws.readyState !== WebSocket.OPEN) return;
  const socket = (ws as unknown as { _socket?: Duplex })._socket;
  if (ws.extensions === '' && socket && socket.writable) socket.write(message.frame);
  else ws.send(message.payload, { binary: false });
}
