import type { Fault } from '../../protocol/index.js';
import { isRouterError } from '../routeros/router-error.js';

/**
 * The `result.fault` for an error thrown by a handler: a RouterError keeps its code and retryable
 * flag; anything else is the agent's own fault (AGENT_ERROR).
 */
export function faultFromError(err: unknown): Fault {
  if (isRouterError(err)) return err.toFault();
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'AGENT_ERROR', message: `agent error: ${message}`.slice(0, 1000), retryable: false };
}

/** A fault the agent states itself. */
export function fault(code: Fault['code'], message: string, retryable = false): Fault {
  return { code, message: message.slice(0, 1000), retryable };
}
