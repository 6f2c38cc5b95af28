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

/**
 * Frames a text message once: FIN and the text opcode, the payload length (7 bits, or 126 and
 * 16 bits, or 127 and 64 bits), no mask (a server never masks), then the payload (RFC 6455 5.2).
 */
export function prebuildTextFrame(payload: Buffer): PrebuiltFrame {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + n);
  frame[0] = 0x81;
  if (n < 126) frame[1] = n;
  else if (n < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    frame.writeUInt32BE(n >>> 0, 6);
  }
  payload.copy(frame, head);
  return { payload, frame };
}

/**
 * The socket under `ws` when prebuilt frames may be written to it directly: without a negotiated
 * extension (no per-message deflate) `ws` frames synchronously and keeps no queue of its own, so
 * writing the ready frame to the underlying socket puts the same bytes on the wire, in the same
 * order among this socket's messages. Null otherwise (or should `ws` stop exposing its socket):
 * messages then go through `ws.send`. Extensions are fixed by the handshake, so a connection's
 * answer never changes: callers may keep it.
 */
export function directSocketOf(ws: WebSocket): Duplex | null {
  const socket = (ws as unknown as { _socket?: Duplex })._socket;
  return ws.extensions === '' && socket ? socket : null;
}

/** Sends the message on an open socket (`direct`: the socket's `directSocketOf`, when kept). */
export function sendPrebuilt(
  ws: WebSocket,
  message: PrebuiltFrame,
  direct: Duplex | null = directSocketOf(ws),
): void {
  if (ws.readyState !== WebSocket.OPEN) return;
  if (direct && direct.writable) direct.write(message.frame);
  else ws.send(message.payload, { binary: false });
}
