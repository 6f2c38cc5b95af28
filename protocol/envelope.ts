import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { decodeBase64Strict, encodeBase64 } from './base64.js';
import { canonicalJson } from './canonical-json.js';
import { describeIssues } from './describe-issues.js';
import { signDetached, signingKeyObject, verifyDetached, verifyingKeyObject } from './ed25519.js';
import { isoTimeSchema, jsonObjectSchema, sessionIdSchema } from './fields.js';
import { decodePublicKey, decodeSecretKey } from './key-pair.js';
import {
  isBatchableType,
  isMessageType,
  MESSAGE_SCHEMAS,
  MESSAGE_SENDERS,
  MESSAGE_SINCE_VERSION,
} from './message-schemas.js';
import type { BatchableType, BatchedMessage, MessageBody, MessageType, Sender } from './message-schemas.js';
import { ProtocolError } from './protocol-error.js';
import { HANDSHAKE_VERSION, isSupportedVersion } from './version.js';
import { isoTime } from './iso-time.js';

const SIGNATURE_BYTES = 64;

/**
 * A signed message as it travels (one websocket text frame of JSON).
 * `sig` is the base64 detached Ed25519 signature of `canonicalJson({v, type, sid, seq, ts, body})`.
 */
export interface Envelope<T extends MessageType = MessageType> {
  /** Protocol version. */
  v: number;
  /** Message type, the key of its body schema in `MESSAGE_SCHEMAS`. */
  type: T;
  /** Session id: the controller's challenge nonce for this connection; binds the message to it. */
  sid: string;
  /** 1, 2, 3, … per sender per session; the receiver refuses anything not above the last one. */
  seq: number;
  /** Sender's time of signing, ISO 8601 UTC. Informative: freshness comes from sid + seq, not clocks. */
  ts: string;
  /** The message itself. */
  body: MessageBody<T>;
  /** Base64 Ed25519 signature. */
  sig: string;
}

/** An envelope of one of the types in `T`, discriminated by `type` so a `switch` narrows `body`. */
export type EnvelopeOf<T extends MessageType = MessageType> = { [K in T]: Envelope<K> }[T];

/** Any envelope of this protocol version. */
export type AnyEnvelope = EnvelopeOf<MessageType>;

/** What a websocket hands over: text, or bytes in one of the forms `ws` uses. */
export type RawFrame = string | Buffer | ArrayBuffer | readonly Buffer[];

/**
 * A secret key made ready to sign many envelopes (`signingKey`): a link makes one per connection,
 * so that no frame pays for decoding the key and building its KeyObject.
 */
export interface SigningKey {
  readonly kind: 'ed25519-signing-key';
  /** The node:crypto private key. */
  readonly keyObject: KeyObject;
}

/** A public key made ready to verify many envelopes (`verifyingKey`), one per peer per connection. */
export interface VerifyingKey {
  readonly kind: 'ed25519-verifying-key';
  /** The base64 public key it was made of. */
  readonly publicKey: string;
  /** The node:crypto public key. */
  readonly keyObject: KeyObject;
}

/**
 * Prepares a base64 tweetnacl secret key (64 bytes) for `signEnvelope`.
 * @throws ProtocolError `BAD_KEY` for a malformed key.
 */
export function signingKey(secretKey: string): SigningKey {
  return { kind: 'ed25519-signing-key', keyObject: signingKeyObject(decodeSecretKey(secretKey)) };
}

/**
 * Prepares a base64 Ed25519 public key (32 bytes) for `openEnvelope`.
 * @throws ProtocolError `BAD_KEY` for a malformed key.
 */
export function verifyingKey(publicKey: string): VerifyingKey {
  return {
    kind: 'ed25519-verifying-key',
    publicKey,
    keyObject: verifyingKeyObject(decodePublicKey(publicKey)),
  };
}

/** Options of `signEnvelope`. */
export interface SignOptions {
  /** Session id (the challenge nonce of this connection). */
  sid: string;
  /** This sender's next sequence number in the session (from a `SequenceCounter`). */
  seq: number;
  /** Sender's base64 secret key, or the same made ready once with `signingKey`. */
  secretKey: string | SigningKey;
  /**
   * Protocol version to sign in: the session's (`negotiateVersion`). Defaults to 1, which every
   * peer reads; the handshake frames are signed in it, and a session of version 1 stays in it.
   */
  v?: number;
  /** Signing time, from the injectable clock; defaults to the system clock. */
  now?: Date;
}

/** Checks shared by `openEnvelope` and `parseEnvelopeUnverified`; each is skipped when absent. */
export interface ReadOptions<T extends MessageType = MessageType> {
  /** Refuse with `WRONG_SESSION` unless the envelope's `sid` is this one. */
  sid?: string;
  /** Refuse with `UNEXPECTED_MESSAGE` unless the type is one of these (e.g. `['enrol', 'hello']` after a challenge). */
  expect?: readonly T[];
  /** Refuse with `UNEXPECTED_MESSAGE` a type that `MESSAGE_SENDERS` says this end does not send. */
  from?: Sender;
}

/** Options of `openEnvelope`. */
export interface OpenOptions<T extends MessageType = MessageType> extends ReadOptions<T> {
  /** The base64 public key the sender must have signed with (pinned or registered), or the same made ready with `verifyingKey`. */
  publicKey: string | VerifyingKey;
  /**
   * Refuse with `UNSUPPORTED_VERSION` an envelope of another version than this one: the session's,
   * once the handshake has settled it. Absent, any supported version is accepted.
   */
  version?: number;
}

// Only the envelope's frame; the body is checked against its own schema once the type is known.
// Strict, because a member outside the signed fields would travel unauthenticated.
const HEAD_SCHEMA = z.strictObject({
  v: z.int(),
  type: z.string().min(1).max(64),
  sid: sessionIdSchema,
  seq: z.int().min(1),
  ts: isoTimeSchema,
  body: jsonObjectSchema,
  // Checked by the signature step so that a missing or garbled sig is BAD_SIGNATURE.
  sig: z.unknown().optional(),
});

/** An envelope's members as read off the wire, before its body is checked. */
export type Head = z.output<typeof HEAD_SCHEMA>;

/**
 * Validates `body` against the schema of `type` (for a `batch`, each inner message against its
 * own type's), stamps it and signs it.
 * Send `encodeEnvelope(result)` (or `JSON.stringify`) as one text frame.
 * @throws ProtocolError `BAD_MESSAGE` if body, sid or seq are invalid (a bug in the sender),
 *   `UNKNOWN_TYPE` for an unknown type or one the version `v` does not have, `BAD_KEY` for a
 *   malformed secret key, `UNSUPPORTED_VERSION` for a version this build does not speak.
 */
export function signEnvelope<T extends MessageType>(
  type: T,
  body: z.input<(typeof MESSAGE_SCHEMAS)[T]>,
  options: SignOptions,
): Envelope<T> {
  if (!isMessageType(type)) throw new ProtocolError('UNKNOWN_TYPE', `unknown message type ${String(type)}`);
  const v = options.v ?? HANDSHAKE_VERSION;
  if (!isSupportedVersion(v)) throw new ProtocolError('UNSUPPORTED_VERSION', `cannot sign version ${v}`);
  const secretKey =
    typeof options.secretKey === 'string' ? decodeSecretKey(options.secretKey) : options.secretKey.keyObject;
  const checkedBody = bodyToSend(type, body, v);
  const unsigned = {
    v,
    type,
    sid: options.sid,
    seq: options.seq,
    ts: isoTime(options.now),
    body: checkedBody,
  };
  const head = HEAD_SCHEMA.safeParse({ ...unsigned, sig: '' });
  if (!head.success) {
    throw new ProtocolError('BAD_MESSAGE', `cannot sign ${type}: ${describeIssues(head.error)}`);
  }
  const signature = signDetached(signedBytes(unsigned), secretKey);
  return { ...unsigned, sig: encodeBase64(signature) };
}

/**
 * The body of a message about to be sent in version `v`, checked against its type's schema (for a
 * `batch`, each inner message against its own): a bug in the sender, never the peer, is refused.
 * @throws ProtocolError `UNKNOWN_TYPE` for a type the version does not have, `BAD_MESSAGE` for a bad body.
 */
export function bodyToSend<T extends MessageType>(
  type: T,
  body: z.input<(typeof MESSAGE_SCHEMAS)[T]>,
  v: number,
): MessageBody<T> {
  assertTypeInVersion(type, v);
  const parsedBody = MESSAGE_SCHEMAS[type].safeParse(body);
  if (!parsedBody.success) {
    throw new ProtocolError(
      'BAD_MESSAGE',
      `cannot sign ${type}: ${describeIssues(parsedBody.error, 'body')}`,
    );
  }
  let checkedBody = parsedBody.data as MessageBody<T>;
  if (type === 'batch') {
    checkedBody = { messages: checkBatch(checkedBody as MessageBody<'batch'>, {}) } as MessageBody<T>;
  }
  return checkedBody;
}

/**
 * The messages an envelope carries, in the order to handle them: the inner messages of a `batch`
 * (already checked by `openEnvelope`), else the envelope's own message.
 */
export function messagesOf<T extends MessageType>(envelope: EnvelopeOf<T>): readonly MessageOf<T>[] {
  if (envelope.type === 'batch') {
    return (envelope as Envelope<'batch'>).body.messages as unknown as readonly MessageOf<T>[];
  }
  return [{ type: envelope.type, body: envelope.body } as MessageOf<T>];
}

/**
 * A message without its envelope, of one of the types in `T` or, for a `batch`, of a type a batch
 * carries; discriminated by `type` so a `switch` narrows `body`.
 */
export type MessageOf<T extends MessageType = MessageType> = {
  [K in Exclude<T, 'batch'> | ('batch' extends T ? BatchableType : never)]: { type: K; body: MessageBody<K> };
}[Exclude<T, 'batch'> | ('batch' extends T ? BatchableType : never)];

/** The wire text of an envelope (one websocket text frame). */
export function encodeEnvelope(envelope: Envelope): string {
  return JSON.stringify(envelope);
}

/**
 * Parses a frame and accepts it only if it is an envelope of a supported version signed by
 * `publicKey` whose body matches its type's schema. Checks run in this order, so nothing about
 * an unauthenticated frame is looked at beyond its frame: JSON and version, envelope shape,
 * signature, then `sid`, type, `expect`/`from`, body. The sequence number is NOT checked here:
 * pass `seq` to the session's `SequenceGuard` after this succeeds.
 * @throws ProtocolError `BAD_MESSAGE`, `UNSUPPORTED_VERSION`, `BAD_SIGNATURE`, `BAD_KEY`,
 *   `WRONG_SESSION`, `UNKNOWN_TYPE`, `UNEXPECTED_MESSAGE`.
 */
export function openEnvelope<T extends MessageType = MessageType>(
  raw: RawFrame,
  options: OpenOptions<T>,
): EnvelopeOf<T> {
  const publicKey =
    typeof options.publicKey === 'string' ? decodePublicKey(options.publicKey) : options.publicKey.keyObject;
  const head = readHead(raw);
  if (options.version !== undefined && head.v !== options.version) {
    throw new ProtocolError(
      'UNSUPPORTED_VERSION',
      `version ${head.v} in a session of version ${options.version}`,
    );
  }
  verifySignature(head, publicKey);
  return checkMessage(head, options);
}

/**
 * Like `openEnvelope` without the signature check, for the one frame whose key is not known yet:
 * the controller peeks at the first frame to learn whether it is `enrol` (key inside the body) or
 * `hello` (key registered for `agent_id`); the agent peeks at a challenge before it has pinned a key.
 * Never act on the result: call `openEnvelope` on the same raw frame with the key it points to.
 * @throws ProtocolError as `openEnvelope`, except `BAD_SIGNATURE` / `BAD_KEY`.
 */
export function parseEnvelopeUnverified<T extends MessageType = MessageType>(
  raw: RawFrame,
  options: ReadOptions<T> = {},
): EnvelopeOf<T> {
  return checkMessage(readHead(raw), options);
}

/**
 * Refuses an envelope that belongs to another session (a frame captured on one connection and
 * replayed into another). `openEnvelope`'s `sid` option does the same.
 * @throws ProtocolError `WRONG_SESSION`.
 */
export function assertSession(envelope: { readonly sid: string }, sid: string): void {
  if (envelope.sid !== sid) throw new ProtocolError('WRONG_SESSION', 'envelope belongs to another session');
}

function readHead(raw: RawFrame): Head {
  let value: unknown;
  try {
    value = JSON.parse(frameText(raw));
  } catch (err) {
    throw new ProtocolError('BAD_MESSAGE', 'frame is not UTF-8 JSON', { cause: err });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProtocolError('BAD_MESSAGE', 'frame is not a JSON object');
  }
  // Version first: another version may have another shape, and that must not read as a bad message.
  const v = (value as { v?: unknown }).v;
  if (!Number.isInteger(v)) throw new ProtocolError('BAD_MESSAGE', 'envelope has no integer version');
  if (!isSupportedVersion(v)) throw new ProtocolError('UNSUPPORTED_VERSION', `protocol version ${String(v)}`);
  const head = HEAD_SCHEMA.safeParse(value);
  if (!head.success) throw new ProtocolError('BAD_MESSAGE', `bad envelope: ${describeIssues(head.error)}`);
  return head.data;
}

function verifySignature(head: Head, publicKey: Uint8Array | KeyObject): void {
  const signature = typeof head.sig === 'string' ? decodeBase64Strict(head.sig) : undefined;
  if (signature === undefined || signature.length !== SIGNATURE_BYTES) {
    throw new ProtocolError('BAD_SIGNATURE', 'signature missing or malformed');
  }
  if (!verifyDetached(signedBytes(head), signature, publicKey)) {
    throw new ProtocolError('BAD_SIGNATURE', `signature of ${head.type} #${head.seq} does not verify`);
  }
}

/**
 * Checks an authenticated message's session, type, sender and body, as `openEnvelope` does once the
 * signature holds; version 3's `openFrame` calls it once the MAC holds.
 */
export function checkMessage<T extends MessageType>(head: Head, options: ReadOptions<T>): EnvelopeOf<T> {
  if (options.sid !== undefined) assertSession(head, options.sid);
  const { type } = head;
  if (!isMessageType(type)) throw new ProtocolError('UNKNOWN_TYPE', `unknown message type ${type}`);
  assertTypeInVersion(type, head.v);
  if (options.expect !== undefined && !(options.expect as readonly string[]).includes(type)) {
    throw new ProtocolError('UNEXPECTED_MESSAGE', `${type} not expected here`);
  }
  if (options.from !== undefined && ![options.from, 'either'].includes(MESSAGE_SENDERS[type])) {
    throw new ProtocolError('UNEXPECTED_MESSAGE', `${type} is never sent by the ${options.from}`);
  }
  const body = MESSAGE_SCHEMAS[type].safeParse(head.body);
  if (!body.success) {
    throw new ProtocolError('BAD_MESSAGE', `bad ${type}: ${describeIssues(body.error, 'body')}`);
  }
  if (type === 'batch') {
    body.data = { messages: checkBatch(body.data as MessageBody<'batch'>, options) };
  }
  // The challenge nonce is the session id; a mismatch would let one challenge vouch for another session.
  if (type === 'challenge' && (body.data as MessageBody<'challenge'>).nonce !== head.sid) {
    throw new ProtocolError('WRONG_SESSION', 'challenge nonce is not its session id');
  }
  return {
    v: head.v,
    type,
    sid: head.sid,
    seq: head.seq,
    ts: head.ts,
    body: body.data,
    // Unverified frames may lack a sig; verified ones always have a string here.
    sig: typeof head.sig === 'string' ? head.sig : '',
  } as EnvelopeOf<T>;
}

// A type is refused in a version older than the one that brought it (a `batch` in version 1).
function assertTypeInVersion(type: MessageType, v: number): void {
  const since = MESSAGE_SINCE_VERSION[type];
  if (since !== undefined && v < since) {
    throw new ProtocolError('UNKNOWN_TYPE', `${type} is not a message of protocol version ${v}`);
  }
}

// The inner messages of a batch, each checked as a message of its own would be: a type a batch may
// carry, from the right sender and expected here, and a body its schema accepts (parsed, so unknown
// members are dropped as for a lone message).
function checkBatch(batch: MessageBody<'batch'>, options: ReadOptions): BatchedMessage[] {
  return batch.messages.map(({ type, body }, i) => {
    if (!isBatchableType(type)) {
      throw new ProtocolError('BAD_MESSAGE', `batch message ${i}: ${type} cannot travel in a batch`);
    }
    if (options.expect !== undefined && !(options.expect as readonly string[]).includes(type)) {
      throw new ProtocolError('UNEXPECTED_MESSAGE', `batch message ${i}: ${type} not expected here`);
    }
    if (options.from !== undefined && ![options.from, 'either'].includes(MESSAGE_SENDERS[type])) {
      throw new ProtocolError(
        'UNEXPECTED_MESSAGE',
        `batch message ${i}: ${type} is never sent by the ${options.from}`,
      );
    }
    const parsed = MESSAGE_SCHEMAS[type].safeParse(body);
    if (!parsed.success) {
      throw new ProtocolError(
        'BAD_MESSAGE',
        `batch message ${i}: bad ${type}: ${describeIssues(parsed.error, 'body')}`,
      );
    }
    return { type, body: parsed.data } as BatchedMessage;
  });
}

function signedBytes(fields: Omit<Head, 'sig'>): Buffer {
  const { v, type, sid, seq, ts, body } = fields;
  return Buffer.from(canonicalJson({ v, type, sid, seq, ts, body }), 'utf8');
}

// Fatal decoding: invalid UTF-8 must not be patched into replacement characters and read on.
const utf8 = new TextDecoder('utf-8', { fatal: true });

function frameText(raw: RawFrame): string {
  return typeof raw === 'string' ? raw : utf8.decode(frameBytes(raw));
}

/** The bytes of a websocket frame in any of the forms `ws` hands over. */
export function frameBytes(raw: RawFrame): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  if (typeof raw === 'string') return Buffer.from(raw, 'utf8');
  if (raw instanceof ArrayBuffer) return Buffer.from(raw);
  return Buffer.concat(raw as readonly Buffer[]);
}
