import { z } from 'zod';
import { ROUTER_FACTS_SCHEMA } from './commands.js';
import { FAULT_SCHEMA } from './fault-codes.js';
import {
  base64Bytes,
  isoTimeSchema,
  jsonObjectSchema,
  label,
  publicKeySchema,
  sessionIdSchema,
  uuidSchema,
} from './fields.js';
import { LINK_ERROR_CODES } from './link-error-codes.js';

// Object schemas drop unknown members (zod's default) so a newer peer may add optional fields
// within the same protocol version; the signature still covers the body as sent.

/** Longest command time to live: the longest delay a Node.js timer can wait (~24.8 days). */
export const MAX_COMMAND_TTL_MS = 2_147_483_647;

/** Most messages one `batch` may carry. */
export const MAX_BATCH_MESSAGES = 256;

/** Most bytes one `stream_data` carries to any peer (before base64). */
export const STREAM_CHUNK_BYTES = 64 * 1024;

/**
 * Most raw bytes one `stream_data` carries to a peer that named `STREAM_LARGE_FEATURE`: a frame's
 * fixed costs (JSON, MAC set-up, WebSocket framing, a callback on each end) paid once per 256 KiB.
 */
export const STREAM_LARGE_CHUNK_BYTES = 256 * 1024;

/**
 * Bytes the controller may send on a stream before `stream_opened` (the agent buffers them until
 * its connection to the router is up): a relayed request leaves with its `stream_open`, without
 * waiting a round trip. Every agent's window is at least this much.
 */
export const STREAM_EARLY_BYTES = 64 * 1024;

/** A receiver grants credit back in steps of at least this part of the window (1/4): fewer frames. */
export const STREAM_CREDIT_DIVISOR = 4;

/**
 * Feature flag of a peer that reads `stream_data` bytes raw after the frame's JSON (sealed-frame.ts)
 * instead of base64 in it: an agent names it in its hello `capabilities`, the controller in its
 * welcome `features`. Each end sends raw bytes only to a peer that named it, and reads both forms.
 */
export const STREAM_BYTES_FEATURE = 'stream.bytes';

/**
 * Feature flag of a peer that reads raw `stream_data` of up to `STREAM_LARGE_CHUNK_BYTES` (named as
 * `STREAM_BYTES_FEATURE` is). Each end sends more than `STREAM_CHUNK_BYTES` in one only to a peer
 * that named both; base64 data stays within `STREAM_CHUNK_BYTES`.
 */
export const STREAM_LARGE_FEATURE = 'stream.large';

/**
 * Feature flag of a peer that MACs large sealed frames with Poly1305 (sealed-frame.ts), named as
 * `STREAM_BYTES_FEATURE` is: a session uses it when both ends named it.
 */
export const MAC_POLY1305_FEATURE = 'mac.poly1305';

/** The bytes of a `stream_data`, whichever form they came in. */
export const streamDataBytes = (body: { data: string | Uint8Array }): Buffer =>
  typeof body.data === 'string'
    ? Buffer.from(body.data, 'base64')
    : Buffer.from(body.data.buffer, body.data.byteOffset, body.data.byteLength);

// Read up to the large size from any peer: a sender keeps to the size its peer named.
const streamBytes = z.custom<Uint8Array>(
  (v) => v instanceof Uint8Array && v.length >= 1 && v.length <= STREAM_LARGE_CHUNK_BYTES,
  { message: `expected 1 to ${STREAM_LARGE_CHUNK_BYTES} bytes` },
);

const agentVersion = label(64);
const ephemeralKeySchema = base64Bytes(32, 32);
const commandName = z
  .string()
  .max(64)
  .regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/);

/**
 * Body schema of every message type, keyed by `type`.
 * Direction is in `MESSAGE_SENDERS`; the handshake is challenge → enrol|hello → welcome (or error).
 */
export const MESSAGE_SCHEMAS = {
  /** Controller → agent, first frame of every connection, signed by the controller key with seq 1; `nonce` is the session `sid`. */
  challenge: z.object({
    nonce: sessionIdSchema,
    controller_key: publicKeySchema,
    server_time: isoTimeSchema,
    /**
     * Since version 2: the protocol versions the controller speaks. The agent answers in the highest
     * one it speaks too (`negotiateVersion`); absent means version 1 only.
     */
    versions: z.array(z.int().min(1).max(1000)).min(1).max(16).optional(),
  }),
  /**
   * Agent → controller, first enrolment: signed with the new `agent_key` (proof of possession), `sid` = challenge nonce.
   * `code` is already normalised (`normaliseEnrolCode`).
   */
  enrol: z.object({
    code: z.string().regex(/^[A-Z0-9]{4,64}$/),
    agent_key: publicKeySchema,
    agent_version: agentVersion,
    facts: ROUTER_FACTS_SCHEMA.partial().optional(),
    /** Since version 3 (required there): the agent's ephemeral X25519 public key for this connection. */
    session_key: ephemeralKeySchema.optional(),
  }),
  /** Agent → controller, an enrolled agent answering the challenge, signed with its registered key. */
  hello: z.object({
    agent_id: uuidSchema,
    agent_version: agentVersion,
    /** Command names and feature flags (e.g. `radius`) this agent build supports. */
    capabilities: z.array(z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/)).max(256),
    /** Since version 3 (required there): the agent's ephemeral X25519 public key for this connection. */
    session_key: ephemeralKeySchema.optional(),
  }),
  /** Controller → agent after a successful enrol or hello; the agent pins `controller_key` on enrolment. */
  welcome: z.object({
    agent_id: uuidSchema,
    allocation_id: uuidSchema,
    controller_key: publicKeySchema,
    heartbeat_seconds: z.int().min(1).max(3600),
    /** Since version 3 (required there): the controller's ephemeral X25519 public key for this connection. */
    session_key: ephemeralKeySchema.optional(),
    /** Feature flags of the controller (e.g. `STREAM_BYTES_FEATURE`); absent from older controllers. */
    features: z
      .array(z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/))
      .max(64)
      .optional(),
  }),
  /**
   * Controller → agent. `name` is any well-formed name, not only the catalogue, so an older agent
   * receives a newer command and answers `UNKNOWN_COMMAND` instead of dropping the link.
   * `ttl_ms` is the time left until `deadline` when the controller sent it: the agent counts it on
   * its monotonic clock from receipt, so no clock of one end is compared with the other's.
   * `deadline` (the controller's clock) stays for agents that predate `ttl_ms`; a controller that
   * predates it sends none, and the agent counts `deadline` from the envelope's `ts` (`commandTtlMs`).
   */
  command: z.object({
    id: uuidSchema,
    name: commandName,
    params: jsonObjectSchema,
    deadline: isoTimeSchema,
    ttl_ms: z.int().min(0).max(MAX_COMMAND_TTL_MS).optional(),
  }),
  /** Agent → controller: command `id` is persisted (or was already known); it will not be lost. */
  ack: z.object({ id: uuidSchema }),
  /** Agent → controller: outcome of command `id`. DONE carries no fault; FAILED must carry one. */
  result: z.discriminatedUnion('status', [
    z.object({
      id: uuidSchema,
      status: z.literal('DONE'),
      output: z.unknown().optional(),
      fault: z.never().optional(),
    }),
    z.object({
      id: uuidSchema,
      status: z.literal('FAILED'),
      output: z.unknown().optional(),
      fault: FAULT_SCHEMA,
    }),
  ]),
  /** Agent → controller: an outbox entry; `id` is its idempotency key, resent until `report_ack`. */
  report: z.object({
    id: uuidSchema,
    kind: z.enum(['facts', 'telemetry', 'event']),
    at: isoTimeSchema,
    data: jsonObjectSchema,
  }),
  /** Controller → agent: these report ids are stored; the agent may drop them from its outbox. */
  report_ack: z.object({ ids: z.array(uuidSchema).min(1).max(1000) }),
  /** Either way: `t` is the sender's clock in epoch milliseconds. */
  ping: z.object({ t: z.int().min(0) }),
  /** Either way: answers a ping, echoing its `t` so the pinger measures the round trip on its own clock. */
  pong: z.object({ t: z.int().min(0) }),
  /** Controller → agent, just before the controller closes the link. */
  error: z.object({ code: z.enum(LINK_ERROR_CODES), message: z.string().max(1000) }),
  /** Either way, reserved: one RADIUS UDP datagram relayed over the link; `peer` is the NAS `address:port`. */
  radius: z.object({ id: label(64), packet: base64Bytes(20, 4096), peer: label(64).optional() }),
  // ---- byte streams (version 3): a TCP connection the agent opens to its router for the controller
  /** Controller → agent: dial the router on `port`; the controller may receive `window` bytes first. */
  stream_open: z.object({
    id: uuidSchema,
    port: z.int().min(1).max(65535),
    window: z.int().min(1).max(16_777_216),
  }),
  /** Agent → controller: connected; the agent may receive `window` bytes first. */
  stream_opened: z.object({ id: uuidSchema, window: z.int().min(1).max(16_777_216) }),
  /**
   * Either way: bytes of the stream, in order (at most `STREAM_CHUNK_BYTES`, or
   * `STREAM_LARGE_CHUNK_BYTES` to a peer with `STREAM_LARGE_FEATURE`): raw after the frame's JSON to
   * a peer with `STREAM_BYTES_FEATURE`, else base64 in it.
   */
  stream_data: z.object({
    id: uuidSchema,
    data: z.union([
      z
        .string()
        .min(1)
        .max(Math.ceil(STREAM_CHUNK_BYTES / 3) * 4),
      streamBytes,
    ]),
  }),
  /** Either way: the receiver consumed `bytes` more: the sender may send that much more. */
  stream_credit: z.object({ id: uuidSchema, bytes: z.int().min(1).max(16_777_216) }),
  /** Either way: the stream is over (`end`: after the data sent before; the others: at once). */
  stream_close: z.object({
    id: uuidSchema,
    reason: z.enum(['end', 'error', 'refused', 'timeout']),
    message: z.string().max(300).optional(),
  }),
  /**
   * Either way, since version 2: several messages of `BATCHABLE_TYPES` under one signature and one
   * sequence number, handled in order as if they had come one by one. Each inner body is checked
   * against its own type's schema when the batch is signed and when it is opened.
   */
  batch: z.object({
    messages: z
      .array(z.object({ type: z.string().min(1).max(64), body: jsonObjectSchema }))
      .min(1)
      .max(MAX_BATCH_MESSAGES),
  }),
} as const satisfies Record<string, z.ZodType>;

/** A message type name. */
export type MessageType = keyof typeof MESSAGE_SCHEMAS;

/** Validated body of message type `T`. */
export type MessageBody<T extends MessageType> = z.output<(typeof MESSAGE_SCHEMAS)[T]>;

/** Which end of the link sends a message. */
export type Sender = 'controller' | 'agent';

/** Who may send each message type; the receiver refuses the others as `UNEXPECTED_MESSAGE` when asked to check. */
export const MESSAGE_SENDERS: { readonly [T in MessageType]: 'controller' | 'agent' | 'either' } = {
  challenge: 'controller',
  enrol: 'agent',
  hello: 'agent',
  welcome: 'controller',
  command: 'controller',
  ack: 'agent',
  result: 'agent',
  report: 'agent',
  report_ack: 'controller',
  ping: 'either',
  pong: 'either',
  error: 'controller',
  radius: 'either',
  stream_open: 'controller',
  stream_opened: 'agent',
  stream_data: 'either',
  stream_credit: 'either',
  stream_close: 'either',
  batch: 'either',
};

/** The first protocol version that has each message type; types not listed exist since version 1. */
export const MESSAGE_SINCE_VERSION: { readonly [T in MessageType]?: number } = {
  batch: 2,
  stream_open: 3,
  stream_opened: 3,
  stream_data: 3,
  stream_credit: 3,
  stream_close: 3,
};

/** Message types a `batch` may carry: everything after the handshake except `error` and `batch` itself. */
export const BATCHABLE_TYPES = Object.freeze([
  'command',
  'ack',
  'result',
  'report',
  'report_ack',
  'ping',
  'pong',
  'radius',
] as const satisfies readonly MessageType[]);

/** A type a `batch` may carry. */
export type BatchableType = (typeof BATCHABLE_TYPES)[number];

/** One message inside a `batch`, discriminated by `type` so a `switch` narrows `body`. */
export type BatchedMessage<T extends BatchableType = BatchableType> = {
  [K in T]: { type: K; body: MessageBody<K> };
}[T];

/** True when `type` may travel inside a `batch`. */
export function isBatchableType(type: unknown): type is BatchableType {
  return (BATCHABLE_TYPES as readonly unknown[]).includes(type);
}

/** All message type names. */
export const MESSAGE_TYPES = Object.freeze(Object.keys(MESSAGE_SCHEMAS) as MessageType[]);

/** True when `type` names a message type of this protocol version. */
export function isMessageType(type: unknown): type is MessageType {
  return typeof type === 'string' && Object.hasOwn(MESSAGE_SCHEMAS, type);
}

/**
 * A command's time to live in ms, to count from its receipt: `ttl_ms` when the controller sent one,
 * else its `deadline` less the envelope's signing time `signedAt` (both read on the controller's clock).
 */
export function commandTtlMs(command: MessageBody<'command'>, signedAt: string): number {
  if (command.ttl_ms !== undefined) return command.ttl_ms;
  const left = Date.parse(command.deadline) - Date.parse(signedAt);
  return Math.min(MAX_COMMAND_TTL_MS, Math.max(0, Number.isFinite(left) ? left : 0));
}
