import { FINAL_LINK_ERROR_CODES } from '../../protocol/index.js';
import type { LinkErrorCode } from '../../protocol/index.js';

/**
 * Where a link failure comes from:
 * - `controller`: the controller sent `error {code}` (a `LINK_ERROR_CODES` code);
 * - `agent`: this agent refused what the controller sent (a ProtocolError code or one of `AGENT_REFUSALS`);
 * - `network`: no connection, or it was lost.
 */
export type LinkErrorSource = 'controller' | 'agent' | 'network';

/**
 * Codes the agent itself ends a connection with, besides the ProtocolError codes:
 * - `CONTROLLER_KEY_MISMATCH`: a correctly signed challenge or welcome announces another controller key
 *   than the one pinned or the one that signed it;
 * - `AGENT_ID_MISMATCH`: welcome names another agent than this one;
 * - `HANDSHAKE_TIMEOUT`: no challenge or welcome in time;
 * - `HEARTBEAT_TIMEOUT`: the controller went silent for 2.5 heartbeats;
 * - `CONNECT_FAILED`: no websocket (refused, DNS, TLS, HTTP status);
 * - `CLOSED`: the socket closed;
 * - `NOT_ENROLLED`: no identity and no enrolment code (or no controller URL): nothing to connect with.
 */
export const AGENT_REFUSALS = [
  'CONTROLLER_KEY_MISMATCH',
  'AGENT_ID_MISMATCH',
  'HANDSHAKE_TIMEOUT',
  'HEARTBEAT_TIMEOUT',
  'CONNECT_FAILED',
  'CLOSED',
  'NOT_ENROLLED',
] as const;

/** Why a link connection ended or never started. */
export class LinkError extends Error {
  override readonly name = 'LinkError';

  /**
   * True when reconnecting with the same credentials cannot help. Of the controller's codes only a
   * verified `error` can be final: an agent-side refusal or a network failure may be a passing
   * fault or an attacker, and must not make the agent give up.
   */
  readonly final: boolean;

  constructor(
    readonly code: string,
    message: string,
    readonly source: LinkErrorSource,
    options: { cause?: unknown; final?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.final =
      options.final ??
      (source === 'controller' && (FINAL_LINK_ERROR_CODES as readonly string[]).includes(code));
  }
}

/** The controller's `error` code as a LinkError. */
export function controllerRefusal(code: LinkErrorCode, message: string): LinkError {
  return new LinkError(code, `controller refused: ${code}${message ? ` (${message})` : ''}`, 'controller');
}
