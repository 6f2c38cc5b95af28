import type { FaultCode } from '../../protocol/fault-codes.js';

/** The protocol fault codes a router operation can end with. */
export const ROUTER_ERROR_CODES = [
  'ROUTER_UNREACHABLE',
  'ROUTER_TIMEOUT',
  'ROUTER_TRAP',
  'ROUTER_AUTH_FAILED',
  'NO_SPACE',
  'BACKUP_EMPTY',
] as const satisfies readonly FaultCode[];

export type RouterErrorCode = (typeof ROUTER_ERROR_CODES)[number];

/** Whether sending the same command again may succeed, when the site does not say otherwise. */
const DEFAULT_RETRYABLE: Readonly<Record<RouterErrorCode, boolean>> = {
  ROUTER_UNREACHABLE: true,
  ROUTER_TIMEOUT: true,
  ROUTER_TRAP: false,
  ROUTER_AUTH_FAILED: false,
  NO_SPACE: false,
  BACKUP_EMPTY: true,
};

export interface RouterErrorDetails {
  /** RouterOS trap category (0 missing item or command … 7 :return value), when the router gave one. */
  category?: number;
  retryable?: boolean;
  cause?: unknown;
}

/**
 * Every failure of the RouterOS adapter. The code is the protocol fault code
 * the agent reports, so a handler can turn it into `result.fault` as is.
 */
export class RouterError extends Error {
  override readonly name = 'RouterError';
  readonly retryable: boolean;
  readonly category: number | undefined;

  constructor(
    readonly code: RouterErrorCode,
    message: string,
    details: RouterErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.retryable = details.retryable ?? DEFAULT_RETRYABLE[code];
    this.category = details.category;
  }

  /** The `result.fault` of this error. */
  toFault(): { code: RouterErrorCode; message: string; retryable: boolean } {
    return { code: this.code, message: this.message.slice(0, 1000), retryable: this.retryable };
  }
}

export function isRouterError(value: unknown): value is RouterError {
  return value instanceof RouterError;
}
