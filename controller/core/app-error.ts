// The one application error class. Every refusal a client can see is an AppError with a code
// from this closed list; the error middleware maps it to the envelope of the route family.

export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  BATCH_TOO_LARGE: 400,
  RESELLER_TOTAL_EXCEEDED: 400,
  INSUFFICIENT_BALANCE: 400,
  PROFILE_PRICE_MISSING: 400,
  BALANCE_NOT_EDITABLE: 400,
  INVALID_JSON: 400,
  WEAK_PASSWORD: 400,
  PLAN_NOT_FOUND: 400,
  NOT_A_CLIENT: 400,
  INVALID_CLOCK: 400,
  UNKNOWN_COMMAND: 400,
  ROUTER_SERIAL_REQUIRED: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  RESELLER_DISABLED: 403,
  RADIUS_LICENSE_INACTIVE: 403,
  LICENSE_INACTIVE: 403,
  EXPIRED: 403,
  /** A catalogue command that changes the router, asked through the generic client command route. */
  COMMAND_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  CLIENT_NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  ALLOCATION_NOT_FOUND: 404,
  COMMAND_NOT_FOUND: 404,
  PROFILE_NOT_FOUND: 404,
  RESELLER_NOT_FOUND: 404,
  TICKET_NOT_FOUND: 404,
  NAS_NOT_FOUND: 404,
  NOTIFICATION_NOT_FOUND: 404,
  MIGRATION_NOT_FOUND: 404,
  /** The path exists with other methods (the `Allow` header lists them). */
  METHOD_NOT_ALLOWED: 405,
  /** The client took too long to send its request head. */
  REQUEST_TIMEOUT: 408,
  EMAIL_ALREADY_EXISTS: 409,
  RESELLER_ALREADY_EXISTS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  JOB_ALREADY_RUNNING: 409,
  TICKET_TRANSITION_REFUSED: 409,
  PRIMARY_NAS_REASSIGN_REQUIRED: 409,
  DEPLOYMENT_IN_PROGRESS: 409,
  VPN_TUNNEL_NOT_CONNECTED: 409,
  NAS_NOT_ACTIVE: 409,
  /** A NAS registered for direct UDP RADIUS names a source address another live NAS has. */
  NAS_ADDRESS_TAKEN: 409,
  /** Direct UDP RADIUS is not listening (or has no address a router can reach). */
  RADIUS_DIRECT_UNAVAILABLE: 409,
  /** The migration inventory refused the router (`motif`); nothing was touched. */
  MIGRATION_NOT_ALLOWED: 409,
  MIGRATION_IN_PROGRESS: 409,
  MIGRATION_NOT_CONFIRMABLE: 409,
  RESTORE_NO_BACKUP: 409,
  RESTORE_BACKUP_UNREADABLE: 409,
  RESTORE_BACKUP_EMPTY: 409,
  // Technician hub (docs/api/support.md).
  INVALID_STATUS: 400,
  SELF_SUPERVISION: 400,
  NOT_A_TECHNICIAN: 400,
  TIER_TOO_LOW: 403,
  NOT_ASSIGNED: 403,
  /** A technician account with no active expert profile (set by an administrator). */
  EXPERT_PROFILE_REQUIRED: 403,
  /** A review from an account that did not post a mission this expert took. */
  REVIEW_NOT_ALLOWED: 403,
  PROFESSIONAL_NOT_FOUND: 404,
  MISSION_NOT_FOUND: 404,
  ALREADY_SUPERVISED: 409,
  ALREADY_REVIEWED: 409,
  /** Another technician claimed the mission first (or it is no longer open). */
  MISSION_ALREADY_CLAIMED: 409,
  /** Supervision of a mission not closed yet, or closing one already closed. */
  MISSION_NOT_CLOSED: 409,
  MISSION_ALREADY_CLOSED: 409,
  MISSION_NOT_ESCROWED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  CLICK_SPAM_PROTECTION: 429,
  INTERNAL_ERROR: 500,
  /** The ticket store refused the import (a database fault); nothing was removed. */
  MIGRATION_IMPORT_FAILED: 500,
  RADIUS_PROVISION_ERROR: 502,
  // Migration and return failures are router states (the router's side failed), not faults here.
  MIGRATION_BACKUP_FAILED: 502,
  MIGRATION_BACKUP_EMPTY: 502,
  MIGRATION_DEPLOY_FAILED: 502,
  MIGRATION_COUNT_FAILED: 502,
  MIGRATION_REMOVE_STALLED: 502,
  MIGRATION_REMOVE_UNVERIFIED: 502,
  RESTORE_USERS_FAILED: 502,
  RESTORE_INCOMPLETE: 502,
  /** A router command run for a request ended FAILED (router unreachable, trap, agent fault). */
  ROUTER_COMMAND_FAILED: 502,
  RADIUS_BRIDGE_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  /** A router command run for a request had no outcome in time (it stays recorded; it may still end). */
  ROUTER_COMMAND_TIMEOUT: 504,
  // --- ticket shop ---
  /** Another tenant's store already has this slug. */
  STORE_SLUG_TAKEN: 409,
  /** A withdrawal asked while the sales go to the seller's own payment account. */
  WITHDRAWAL_MERCHANT_ACCOUNT: 409,
  /** The administrator froze the shop's withdrawals. */
  WITHDRAWALS_DISABLED: 409,
  /** A withdrawal over the available balance, or with a balance under the minimum. */
  INSUFFICIENT_FUNDS: 400,
  // ---- remote access (docs/api/remote-access.md) ----
  /** A management probe without `candidate_channel_id`. */
  VPN_CANDIDATE_CHANNEL_REQUIRED: 400,
  /** `candidate_channel_id` is not a channel of that allocation (a protocol name, a profile id…). */
  VPN_CANDIDATE_CHANNEL_NOT_FOUND: 400,
  TRANSPORT_ATTEMPT_NOT_FOUND: 404,
  /** A channel move the state machine refuses (a revoked channel probed, for instance). */
  CHANNEL_TRANSITION_REFUSED: 409,
  /** The {vpn_host} end did not answer (or none is configured). */
  VPN_HOST_UNAVAILABLE: 503,
  // ---- client equipment (docs/api/equipment.md) ----
  /** The serial is unknown, another client's, or the registry and the allocation disagree about it. */
  ROUTER_NOT_OWNED: 404,
  DEVICE_NOT_FOUND: 404,
  /** The Suivi Pro plan's device cap is reached (a tier reached, not a missing right). */
  DEVICE_QUOTA_REACHED: 402,
  /** The quota is enforced and the client holds no active Suivi Pro plan. */
  SUIVI_PRO_REQUIRED: 403,
  /** Every dst-nat port of the router's range is reserved. */
  EQUIPMENT_PORTS_EXHAUSTED: 409,
  /** A per-device link (`st` or its cookie) expired, altered, or for another host. */
  ACCESS_LINK_INVALID: 403,
  /** The per-device host is not configured (`TICKETNET_EQUIPMENT_DEVICE_DOMAIN`). */
  ACCESS_LINK_UNAVAILABLE: 503,
  /** The relay opens only ACTIVE devices whose router is still the client's on its slot. */
  DEVICE_NOT_ACTIVE: 409,
  /** The router's agent link is down (or held by an agent too old for the relay). */
  EQUIPMENT_LINK_DOWN: 503,
  /** The agent could not reach the router's forward (refused, or the rule is gone). */
  DEVICE_RELAY_FAILED: 502,
  /** The device did not answer through the relay in time. */
  DEVICE_NOT_RESPONDING: 504,
  /** Every management port of the controller's web access range is open for someone already. */
  WEB_ACCESS_PORTS_EXHAUSTED: 503,
  // ---- bandwidth programme (docs/api/bandwidth.md): the first failure in this order answers ----
  BW_NAS_REQUIRED: 400,
  /** Absent or another tenant's router: not found, as every other tenant's id. */
  BW_NAS_NOT_OWNED: 404,
  BW_LIMIT_REQUIRED: 400,
  BW_LIMIT_INVALID: 400,
  BW_MODE_INVALID: 400,
  BW_SCHEDULE_EMPTY: 400,
  BW_DATE_INVALID: 400,
  BW_WEEKDAY_INVALID: 400,
  BW_SHARE_INVALID: 400,
  BW_CLASSES_INVALID: 400,
  BW_USER_PAIR_REQUIRED: 400,
  BW_MAX_USERS_INVALID: 400,
  // Network-quality telemetry (POST /qoe/telemetry): the NAS's bridge token.
  QOE_BRIDGE_TOKEN_REQUIRED: 401,
  QOE_BRIDGE_TOKEN_INVALID: 401,
  /** The body's `nas_id` is not the NAS the bridge token was issued to. */
  QOE_NAS_MISMATCH: 403,
  QOE_SESSION_NOT_FOUND: 404,
  QOE_ACTION_NOT_FOUND: 404,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One entry of `details[]` on a validation refusal: which field, and why. */
export interface FieldIssue {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  /** Top-level `details` of the body (an object or the list of field issues). */
  details?: unknown;
  /** Extra top-level body fields some answers carry (e.g. `idempotent`, `nas` of DEPLOYMENT_IN_PROGRESS). */
  extra?: Record<string, unknown>;
  /** Response headers (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  /** Overrides the code's default status where one answer needs another one. */
  status?: number;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.details = options.details;
    this.extra = options.extra;
    this.headers = options.headers;
  }
}

export const notFound = (message = 'Not found'): AppError => new AppError('NOT_FOUND', message);
