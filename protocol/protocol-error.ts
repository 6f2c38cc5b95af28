/**
 * Closed list of the reasons a frame is refused on the agent link.
 * - `BAD_MESSAGE`: not JSON, envelope or body of the wrong shape (also raised when signing an invalid body).
 * - `UNSUPPORTED_VERSION`: envelope `v` is not in `SUPPORTED_VERSIONS`.
 * - `UNKNOWN_TYPE`: correctly signed, but the message type is not in `MESSAGE_SCHEMAS`.
 * - `BAD_SIGNATURE`: signature missing, malformed, or not made by the expected key.
 * - `BAD_KEY`: a key handed to this package is not a base64 Ed25519 key of the right length.
 * - `REPLAYED_SEQUENCE`: `seq` not greater than the last one accepted in this session.
 * - `WRONG_SESSION`: `sid` is not the session being checked (or a challenge whose nonce is not its sid).
 * - `UNEXPECTED_MESSAGE`: a valid message that the receiver does not accept from this sender or at this point.
 */
export const PROTOCOL_ERROR_CODES = [
  'BAD_MESSAGE',
  'UNSUPPORTED_VERSION',
  'UNKNOWN_TYPE',
  'BAD_SIGNATURE',
  'BAD_KEY',
  'REPLAYED_SEQUENCE',
  'WRONG_SESSION',
  'UNEXPECTED_MESSAGE',
] as const;

/** One of `PROTOCOL_ERROR_CODES`. */
export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number];

/**
 * The only error this package throws on purpose. `code` is stable and meant for `switch`;
 * `message` is for logs and may change. Every code is also a valid `error` message code,
 * so a receiver can tell its peer why it is closing.
 */
export class ProtocolError extends Error {
  /** Why the frame or value was refused. */
  readonly code: ProtocolErrorCode;

  /** Builds an error with a stable `code` and a human `message` (never a secret). */
  constructor(code: ProtocolErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProtocolError';
    this.code = code;
  }
}
