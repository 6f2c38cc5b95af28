// Public API of the agent link protocol, shared by the controller hub and the site agent.
// READ docs/agent-link.md: the behaviour both sides must implement around these messages
// (handshake order, command journal and redelivery, outbox and report_ack, heartbeat).
export {
  PROTOCOL_VERSION,
  SUPPORTED_VERSIONS,
  HANDSHAKE_VERSION,
  isSupportedVersion,
  negotiateVersion,
} from './version.js';
export { ProtocolError, PROTOCOL_ERROR_CODES } from './protocol-error.js';
export type { ProtocolErrorCode } from './protocol-error.js';
export { canonicalJson } from './canonical-json.js';
export {
  generateKeyPair,
  derivePublicKey,
  publicKeyFingerprint,
  decodePublicKey,
  decodeSecretKey,
  PUBLIC_KEY_BYTES,
  SECRET_KEY_BYTES,
} from './key-pair.js';
export type { KeyPair } from './key-pair.js';
export { generateSessionNonce, SESSION_NONCE_BYTES } from './session-nonce.js';
export {
  isoTimeSchema,
  uuidSchema,
  publicKeySchema,
  sessionIdSchema,
  jsonObjectSchema,
  base64Bytes,
} from './fields.js';
export {
  signEnvelope,
  openEnvelope,
  parseEnvelopeUnverified,
  assertSession,
  encodeEnvelope,
  messagesOf,
  signingKey,
  verifyingKey,
} from './envelope.js';
export type {
  MessageOf,
  SigningKey,
  VerifyingKey,
  Envelope,
  EnvelopeOf,
  AnyEnvelope,
  RawFrame,
  SignOptions,
  ReadOptions,
  OpenOptions,
} from './envelope.js';
export {
  generateEphemeralKeyPair,
  deriveSessionKeys,
  EPHEMERAL_KEY_BYTES,
  type EphemeralKeyPair,
  type SessionKeys,
  type DeriveOptions,
} from './session-keys.js';
export {
  sealFrame,
  sealStreamDataInPlace,
  openFrame,
  SEALED_VERSION,
  STREAM_FRAME_ROOM,
  SEALED_HEADER_BYTES,
  COMPRESS_FROM_BYTES,
  type SealOptions,
  type OpenFrameOptions,
} from './sealed-frame.js';
export { SequenceGuard } from './sequence-guard.js';
export { SequenceCounter } from './sequence-counter.js';
export {
  MESSAGE_SCHEMAS,
  MESSAGE_SENDERS,
  MESSAGE_TYPES,
  MESSAGE_SINCE_VERSION,
  STREAM_CHUNK_BYTES,
  STREAM_CREDIT_DIVISOR,
  STREAM_EARLY_BYTES,
  STREAM_BYTES_FEATURE,
  STREAM_LARGE_CHUNK_BYTES,
  STREAM_LARGE_FEATURE,
  MAC_POLY1305_FEATURE,
  streamDataBytes,
  BATCHABLE_TYPES,
  MAX_BATCH_MESSAGES,
  MAX_COMMAND_TTL_MS,
  commandTtlMs,
  isMessageType,
  isBatchableType,
} from './message-schemas.js';
export type { MessageType, MessageBody, Sender, BatchableType, BatchedMessage } from './message-schemas.js';
export {
  COMMANDS,
  ROUTER_FACTS_SCHEMA,
  BUILT_IN_HOTSPOT_USER,
  HOTSPOT_USER_SCHEMA,
  HOTSPOT_PROFILE_SCHEMA,
  HOTSPOT_USERS_REMOVE_MAX,
  HOTSPOT_USERS_RESTORE_BATCH,
  isKnownCommand,
  parseCommandParams,
  parseCommandOutput,
  changesRouter,
  redactParams,
  REDACTED,
  equipmentMarker,
} from './commands.js';
export { hotspotUserColumnsSchema, usersToColumns, usersFromColumns } from './hotspot-user-columns.js';
export type { HotspotUserColumns } from './hotspot-user-columns.js';
export type {
  CommandSpec,
  CommandEffect,
  CommandName,
  CommandParams,
  CommandOutput,
  KnownCommand,
  CommandCheck,
  HotspotUser,
  HotspotProfile,
} from './commands.js';
export { FAULT_CODES, FAULT_SCHEMA } from './fault-codes.js';
export type { FaultCode, Fault } from './fault-codes.js';
export { LINK_ERROR_CODES, FINAL_LINK_ERROR_CODES } from './link-error-codes.js';
export type { LinkErrorCode } from './link-error-codes.js';
export { normaliseEnrolCode } from './enrol-code.js';
export {
  RADIUS_RELAY_FACT,
  RADIUS_RELAY_REPORT_SCHEMA,
  type RadiusRelayReport,
} from './radius-relay-report.js';
export { isoTime } from './iso-time.js';
export { monotonicMs } from './monotonic-time.js';
