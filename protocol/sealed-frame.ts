// The frames of protocol version 3 after the handshake: one binary websocket frame each, a short
// header, a MAC made with the session key of the sender's direction, and the message.
//
//   byte 0      version (3)
//   byte 1      flags: bit 0 = the payload is deflate-raw compressed; bit 1 = the payload carries
//               raw bytes (below); other bits must be 0, and bits 0 and 1 never together
//   bytes 2-9   sequence number, unsigned big-endian
//   bytes 10-25 MAC: HMAC-SHA256 truncated to 16 bytes over bytes 0-9, the session id's bytes and
//               the payload as sent (compressed or not); in a session whose ends both named
//               `MAC_POLY1305_FEATURE`, a payload over 4 KiB has a Poly1305 tag over the same bytes
//               instead (below)
//   bytes 26-   payload: UTF-8 JSON {"type","ts","body"}
//
// With bit 1 (a `stream_data` whose `data` is bytes, for a peer that reads them): the payload is a
// 4-byte big-endian length of the JSON, the JSON without `data`, then the bytes as they are: a
// device's bytes pass with one copy instead of base64 in JSON on both ends.
//
// The receiver checks the MAC (in constant time) before it reads anything else: nothing is
// decompressed, parsed or validated until the frame is known to come from the peer of this session.
// The session id is not on the wire: the MAC covers it, so a frame of another session is refused.
//
// Poly1305 (RFC 8439's ChaCha20-Poly1305 with the frame as additional data and nothing to encrypt:
// the tag is a Poly1305 MAC with a one-time key from ChaCha20): node:crypto runs it several times
// faster than HMAC-SHA256 over a large payload, which matters for a device's bytes relayed by the
// megabyte. The key is the sender's direction's Poly1305 key (`SessionKeys.poly1305`), the nonce
// the frame's sequence number (4 zero bytes then the 8 of the header): a sender never seals two
// frames with one number in a session, and every session and direction has keys of its own, so no
// nonce repeats under a key. Smaller frames keep HMAC-SHA256, which costs them less (no cipher
// object); the receiver picks the MAC by the frame's length as the sender did.
import { createCipheriv, createHmac, hash, timingSafeEqual } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { z } from 'zod';
import {
  bodyToSend,
  checkMessage,
  frameBytes,
  type EnvelopeOf,
  type RawFrame,
  type ReadOptions,
} from './envelope.js';
import { isoTimeSchema } from './fields.js';
import type { MESSAGE_SCHEMAS, MessageBody, MessageType } from './message-schemas.js';
import { ProtocolError } from './protocol-error.js';
import { MAC_KEY_BYTES, type SessionKeys } from './session-keys.js';
import { isoTime } from './iso-time.js';

/** The protocol version of sealed frames. */
export const SEALED_VERSION = 3;
/** Bytes before the payload: version, flags, sequence number, MAC. */
export const SEALED_HEADER_BYTES = 26;
const MAC_BYTES = 16;
const MAC_AT = 10;
const FLAG_DEFLATE = 1;
const FLAG_BYTES = 2;
const JSON_LENGTH_BYTES = 4;
const NONCE_BYTES = 12;

/**
 * Bytes `sealStreamDataInPlace` needs free before a stream's bytes: the header, the JSON's length
 * and the JSON of a `stream_data` (~110 bytes), with some to spare.
 */
export const STREAM_FRAME_ROOM = 192;

/**
 * Payloads from this size on are compressed when that makes them smaller: below it the saving is a
 * few bytes and not worth the CPU (acks, results, pings, single reports stay plain).
 */
export const COMPRESS_FROM_BYTES = 1024;

export interface SealOptions {
  keys: SessionKeys;
  /** This sender's next sequence number in the session (from a `SequenceCounter`). */
  seq: number;
  /** Sending time, from the injectable clock; defaults to the system clock. */
  now?: Date;
  /** Compress a payload from this size on (default `COMPRESS_FROM_BYTES`; Infinity: never). */
  compressFrom?: number;
}

export interface OpenFrameOptions<T extends MessageType = MessageType> extends Omit<ReadOptions<T>, 'sid'> {
  keys: SessionKeys;
  /**
   * Largest payload once decompressed: the receiver's authenticated frame limit, so a compressed
   * frame cannot make it hold more than an uncompressed one could.
   */
  maxBytes: number;
}

/**
 * Checks `body` against its type's schema and seals it for the session's peer.
 * Send the result as one binary websocket frame.
 * @throws ProtocolError `BAD_MESSAGE` for an invalid body or sequence number, `UNKNOWN_TYPE`.
 */
export function sealFrame<T extends MessageType>(
  type: T,
  body: z.input<(typeof MESSAGE_SCHEMAS)[T]>,
  options: SealOptions,
): Buffer {
  if (!Number.isSafeInteger(options.seq) || options.seq < 1) {
    throw new ProtocolError('BAD_MESSAGE', `cannot seal ${type}: sequence number ${options.seq}`);
  }
  const checked = bodyToSend(type, body, SEALED_VERSION);
  const ts = isoTime(options.now);
  if (type === 'stream_data') {
    const { id, data } = checked as MessageBody<'stream_data'>;
    if (typeof data !== 'string') return sealBytes(type, ts, id, data, options);
  }
  let payload = Buffer.from(JSON.stringify({ type, ts, body: checked }), 'utf8');
  let flags = 0;
  if (payload.length >= (options.compressFrom ?? COMPRESS_FROM_BYTES)) {
    const packed = deflateRawSync(payload);
    if (packed.length < payload.length) {
      payload = packed;
      flags = FLAG_DEFLATE;
    }
  }
  const frame = Buffer.allocUnsafe(SEALED_HEADER_BYTES + payload.length);
  frame[0] = SEALED_VERSION;
  frame[1] = flags;
  writeSeq(frame, options.seq);
  payload.copy(frame, SEALED_HEADER_BYTES);
  mac(options.keys, 'send', frame).copy(frame, MAC_AT);
  return frame;
}

// A `stream_data` with raw bytes: its JSON (without `data`) then the bytes, one copy of them.
function sealBytes(
  type: 'stream_data',
  ts: string,
  id: string,
  data: Uint8Array,
  options: SealOptions,
): Buffer {
  const json = Buffer.from(JSON.stringify({ type, ts, body: { id } }), 'utf8');
  const at = SEALED_HEADER_BYTES + JSON_LENGTH_BYTES + json.length;
  const frame = Buffer.allocUnsafe(at + data.length);
  frame.set(data, at);
  return finishBytesFrame(frame, json, options);
}

/**
 * Seals a `stream_data` of `length` bytes that lie in `buffer` from `at`, writing the header and
 * the JSON into the free room before them (at least `STREAM_FRAME_ROOM` bytes): the bytes are not
 * copied. For a peer that reads raw bytes (`STREAM_BYTES_FEATURE`). Returns the frame, a view of
 * `buffer`, which the caller must leave untouched from then on (it goes to the socket as it is).
 * @throws ProtocolError `BAD_MESSAGE` for a bad id, length or sequence number, or too little room.
 */
export function sealStreamDataInPlace(
  id: string,
  buffer: Buffer,
  at: number,
  length: number,
  options: SealOptions,
): Buffer {
  if (!Number.isSafeInteger(options.seq) || options.seq < 1) {
    throw new ProtocolError('BAD_MESSAGE', `cannot seal stream_data: sequence number ${options.seq}`);
  }
  if (!Number.isSafeInteger(at) || at < 0 || at + length > buffer.length) {
    throw new ProtocolError('BAD_MESSAGE', 'stream bytes outside their buffer');
  }
  bodyToSend('stream_data', { id, data: buffer.subarray(at, at + length) }, SEALED_VERSION);
  const json = Buffer.from(
    JSON.stringify({ type: 'stream_data', ts: isoTime(options.now), body: { id } }),
    'utf8',
  );
  const start = at - json.length - JSON_LENGTH_BYTES - SEALED_HEADER_BYTES;
  if (start < 0) throw new ProtocolError('BAD_MESSAGE', 'no room for the frame before the stream bytes');
  return finishBytesFrame(buffer.subarray(start, at + length), json, options);
}

// Header, JSON length and JSON of a raw bytes frame whose bytes are already in place, then its MAC.
function finishBytesFrame(frame: Buffer, json: Buffer, options: SealOptions): Buffer {
  frame[0] = SEALED_VERSION;
  frame[1] = FLAG_BYTES;
  writeSeq(frame, options.seq);
  frame.writeUInt32BE(json.length, SEALED_HEADER_BYTES);
  json.copy(frame, SEALED_HEADER_BYTES + JSON_LENGTH_BYTES);
  mac(options.keys, 'send', frame).copy(frame, MAC_AT);
  return frame;
}

/**
 * Opens a sealed frame of this session's peer. Order: length and version, MAC (constant time), flags,
 * decompression (capped at `maxBytes`), JSON, then the message checks of `openEnvelope` (type,
 * `expect`/`from`, body). The sequence number is NOT checked here: pass `seq` to the session's
 * `SequenceGuard` after this succeeds.
 * @throws ProtocolError `BAD_MESSAGE`, `UNSUPPORTED_VERSION`, `BAD_SIGNATURE` (the MAC does not hold:
 *   another key, another session, or altered bytes), `UNKNOWN_TYPE`, `UNEXPECTED_MESSAGE`.
 */
export function openFrame<T extends MessageType = MessageType>(
  raw: RawFrame,
  options: OpenFrameOptions<T>,
): EnvelopeOf<T> {
  const frame = frameBytes(raw);
  if (frame.length < SEALED_HEADER_BYTES)
    throw new ProtocolError('BAD_MESSAGE', 'frame shorter than its header');
  if (frame[0] !== SEALED_VERSION) {
    throw new ProtocolError('UNSUPPORTED_VERSION', `frame of version ${frame[0]} in a session of version 3`);
  }
  const expected = mac(options.keys, 'receive', frame);
  if (!timingSafeEqual(expected, frame.subarray(MAC_AT, MAC_AT + MAC_BYTES))) {
    throw new ProtocolError('BAD_SIGNATURE', 'frame MAC does not verify');
  }
  const flags = frame[1]!;
  if ((flags & ~(FLAG_DEFLATE | FLAG_BYTES)) !== 0 || flags === (FLAG_DEFLATE | FLAG_BYTES)) {
    throw new ProtocolError('BAD_MESSAGE', `unknown frame flags ${flags}`);
  }
  let payload = frame.subarray(SEALED_HEADER_BYTES);
  let bytes: Buffer | undefined;
  if (payload.length > options.maxBytes)
    throw new ProtocolError('BAD_MESSAGE', 'payload over the frame limit');
  if (flags & FLAG_BYTES) {
    const jsonLength = payload.length >= JSON_LENGTH_BYTES ? payload.readUInt32BE(0) : -1;
    if (jsonLength < 0 || JSON_LENGTH_BYTES + jsonLength > payload.length) {
      throw new ProtocolError('BAD_MESSAGE', 'raw bytes frame with a bad JSON length');
    }
    bytes = payload.subarray(JSON_LENGTH_BYTES + jsonLength);
    payload = payload.subarray(JSON_LENGTH_BYTES, JSON_LENGTH_BYTES + jsonLength);
  } else if (flags & FLAG_DEFLATE) {
    try {
      payload = inflateRawSync(payload, { maxOutputLength: options.maxBytes });
    } catch (err) {
      throw new ProtocolError('BAD_MESSAGE', 'compressed payload is corrupt or over the frame limit', {
        cause: err,
      });
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(payload));
  } catch (err) {
    throw new ProtocolError('BAD_MESSAGE', 'payload is not UTF-8 JSON', { cause: err });
  }
  const { type, ts, body } = (value ?? {}) as { type?: unknown; ts?: unknown; body?: unknown };
  if (typeof type !== 'string' || !isoTimeSchema.safeParse(ts).success) {
    throw new ProtocolError('BAD_MESSAGE', 'payload has no type or no time');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProtocolError('BAD_MESSAGE', 'payload body is not an object');
  }
  if (bytes !== undefined) {
    // raw bytes belong to a `stream_data` only, which then carries no `data` of its own in JSON
    if (type !== 'stream_data' || 'data' in body) {
      throw new ProtocolError('BAD_MESSAGE', `raw bytes in a ${type} frame`);
    }
    (body as Record<string, unknown>).data = bytes;
  }
  return checkMessage(
    {
      v: SEALED_VERSION,
      type,
      sid: options.keys.sid,
      seq: readSeq(frame),
      ts: ts as string,
      body: body as Record<string, unknown>,
      sig: '',
    },
    options,
  );
}

// HMAC-SHA256 (RFC 2104) of a frame small enough to copy: the block-sized key XOR the inner pad,
// the header, the session id and the payload in one buffer, hashed in one call, then the outer pad
// and that digest, hashed in one call. The same MAC as `createHmac`, without its object and key
// set-up per frame: a few microseconds on every frame of both ends, most of what a small frame's
// MAC costs. Larger frames go through `createHmac`, which reads the payload where it lies.
const ONE_SHOT_MAX_BYTES = 4096;
const HMAC_BLOCK_BYTES = 64;
const INNER_PAD = 0x36;
const OUTER_PAD = 0x5c;

function mac(keys: SessionKeys, direction: 'send' | 'receive', frame: Buffer): Buffer {
  const material = keys.material;
  const at = direction === 'send' ? 0 : MAC_KEY_BYTES;
  const sidAt = 2 * MAC_KEY_BYTES;
  const payloadBytes = frame.length - SEALED_HEADER_BYTES;
  if (payloadBytes > ONE_SHOT_MAX_BYTES && keys.poly1305 !== undefined) {
    return poly1305(keys.poly1305, at, material, frame);
  }
  if (payloadBytes > ONE_SHOT_MAX_BYTES) {
    const bytes = Buffer.from(material, 'latin1');
    return createHmac('sha256', bytes.subarray(at, at + MAC_KEY_BYTES))
      .update(frame.subarray(0, MAC_AT))
      .update(bytes.subarray(sidAt))
      .update(frame.subarray(SEALED_HEADER_BYTES))
      .digest()
      .subarray(0, MAC_BYTES);
  }
  const sidBytes = material.length - sidAt;
  const inner = Buffer.allocUnsafe(HMAC_BLOCK_BYTES + MAC_AT + sidBytes + payloadBytes);
  const outer = Buffer.allocUnsafe(HMAC_BLOCK_BYTES + 32);
  for (let i = 0; i < MAC_KEY_BYTES; i++) {
    const k = material.charCodeAt(at + i);
    inner[i] = k ^ INNER_PAD;
    outer[i] = k ^ OUTER_PAD;
  }
  inner.fill(INNER_PAD, MAC_KEY_BYTES, HMAC_BLOCK_BYTES);
  outer.fill(OUTER_PAD, MAC_KEY_BYTES, HMAC_BLOCK_BYTES);
  frame.copy(inner, HMAC_BLOCK_BYTES, 0, MAC_AT);
  inner.write(material.slice(sidAt), HMAC_BLOCK_BYTES + MAC_AT, 'latin1');
  frame.copy(inner, HMAC_BLOCK_BYTES + MAC_AT + sidBytes, SEALED_HEADER_BYTES);
  hash('sha256', inner, 'buffer').copy(outer, HMAC_BLOCK_BYTES);
  return hash('sha256', outer, 'buffer').subarray(0, MAC_BYTES);
}

// The Poly1305 tag of ChaCha20-Poly1305 over the frame as additional data, nothing encrypted: the
// header up to the MAC, the session id's bytes and the payload, as HMAC-SHA256 covers them.
function poly1305(keys: string, at: number, material: string, frame: Buffer): Buffer {
  const nonce = Buffer.alloc(NONCE_BYTES);
  frame.copy(nonce, NONCE_BYTES - 8, 2, MAC_AT);
  const key = Buffer.from(keys.slice(at, at + MAC_KEY_BYTES), 'latin1');
  const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: MAC_BYTES });
  const nothing = { plaintextLength: 0 };
  cipher.setAAD(frame.subarray(0, MAC_AT), nothing);
  cipher.setAAD(Buffer.from(material.slice(2 * MAC_KEY_BYTES), 'latin1'), nothing);
  cipher.setAAD(frame.subarray(SEALED_HEADER_BYTES), nothing);
  cipher.final();
  return cipher.getAuthTag();
}

// A safe integer fits in 53 bits: the high 32-bit word and the low one.
function writeSeq(frame: Buffer, seq: number): void {
  frame.writeUInt32BE(Math.floor(seq / 0x1_0000_0000), 2);
  frame.writeUInt32BE(seq >>> 0, 6);
}

function readSeq(frame: Buffer): number {
  return frame.readUInt32BE(2) * 0x1_0000_0000 + frame.readUInt32BE(6);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
