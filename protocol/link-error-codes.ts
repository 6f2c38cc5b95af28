import { PROTOCOL_ERROR_CODES } from './protocol-error.js';

/**
 * Closed list of the codes a controller may put in an `error` message before it closes the link.
 * Every `ProtocolError` code is included (the controller refused one of the agent's frames), plus:
 * - `ENROL_CODE_INVALID`: unknown, expired or already used enrolment code (one code for all three,
 *   so guessing learns nothing). Final: the agent must not retry with the same code.
 * - `AGENT_UNKNOWN`: `hello` names no enrolled agent, or its key is not the registered one. Final: re-enrol.
 * - `AGENT_REVOKED`: the agent was enrolled but an operator revoked it. Final.
 * - `SESSION_REPLACED`: a newer connection of the same agent took over; reconnect with backoff.
 * - `HANDSHAKE_TIMEOUT`: no `enrol`/`hello` in time after the challenge; reconnect with backoff.
 * - `SHUTTING_DOWN`: the controller is stopping; reconnect with backoff.
 * - `INTERNAL_ERROR`: anything else on the controller side; reconnect with backoff.
 */
export const LINK_ERROR_CODES = [
  ...PROTOCOL_ERROR_CODES,
  'ENROL_CODE_INVALID',
  'AGENT_UNKNOWN',
  'AGENT_REVOKED',
  'SESSION_REPLACED',
  'HANDSHAKE_TIMEOUT',
  'SHUTTING_DOWN',
  'INTERNAL_ERROR',
] as const;

/** One of `LINK_ERROR_CODES`. */
export type LinkErrorCode = (typeof LINK_ERROR_CODES)[number];

/** Link errors after which reconnecting with the same credentials cannot help (the agent should stop and say so). */
export const FINAL_LINK_ERROR_CODES: readonly LinkErrorCode[] = Object.freeze([
  'ENROL_CODE_INVALID',
  'AGENT_UNKNOWN',
  'AGENT_REVOKED',
  'UNSUPPORTED_VERSION',
]);
