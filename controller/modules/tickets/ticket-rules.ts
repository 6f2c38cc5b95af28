// The voucher rules, pure so they can be tested as tables: which status changes a manager may
// ask for, and what an authentication of a ticket decides given its usage and its profile.
import type { TicketStatus } from './tables.js';

/** Statuses a manager may request through PATCH. USED and EXHAUSTED are reached by use only. */
export type ManagerStatus = 'ACTIVE' | 'DISABLED' | 'DELETED';

/**
 * The status a manager's request leads to, or null when the transition is refused.
 * Re-enabling a suspended ticket gives it back the state its use implies: ACTIVE if it never
 * authenticated, USED otherwise. DELETED is final; EXHAUSTED may only be deleted.
 */
export function managerTransition(
  from: TicketStatus,
  requested: ManagerStatus,
  everUsed: boolean,
): TicketStatus | null {
  if (from === requested) return from;
  switch (from) {
    case 'ACTIVE':
    case 'USED':
      return requested === 'ACTIVE' ? null : requested;
    case 'DISABLED':
      if (requested === 'ACTIVE') return everUsed ? 'USED' : 'ACTIVE';
      return requested;
    case 'EXHAUSTED':
      return requested === 'DELETED' ? 'DELETED' : null;
    case 'DELETED':
      return null;
  }
}

/**
 * What authentication needs to know about a ticket and its profile. The quotas are the effective
 * ones: the ticket's own limit when it has one, else its profile's (see `effectiveLimit`).
 */
export interface AuthTicket {
  code: string;
  password: string;
  status: TicketStatus;
  used_at: string | null;
  expires_at: string | null;
  bytes_used: number;
  seconds_used: number;
  rate_limit: string | null;
  data_limit_bytes: number | null;
  time_limit_seconds: number | null;
  validity_seconds: number | null;
}

export type RejectReason = 'UNKNOWN_USER' | 'BAD_PASSWORD' | 'DISABLED' | 'DELETED' | 'EXHAUSTED' | 'EXPIRED';

export interface Grant {
  rateLimit: string | null;
  /** Seconds the session may last: the smaller of the time quota left and the time to expiry. */
  sessionTimeout: number | null;
  /** Bytes the session may move (data quota left). */
  totalLimitBytes: number | null;
}

export type AuthDecision =
  | { result: 'ACCEPT'; firstUse: boolean; expiresAt: string | null; grant: Grant }
  /** `exhaust`: the ticket is USED but its quota is spent, so it must become EXHAUSTED. */
  | { result: 'REJECT'; reason: RejectReason; exhaust: boolean };

const reject = (reason: RejectReason, exhaust = false): AuthDecision => ({
  result: 'REJECT',
  reason,
  exhaust,
});

/** When the ticket stops being valid: fixed at first use, or derived for one first seen by accounting. */
export function effectiveExpiry(
  t: Pick<AuthTicket, 'expires_at' | 'used_at' | 'validity_seconds'>,
): Date | null {
  if (t.expires_at) return new Date(t.expires_at);
  if (t.used_at && t.validity_seconds !== null) {
    return new Date(new Date(t.used_at).getTime() + t.validity_seconds * 1000);
  }
  return null;
}

export const remainingBytes = (t: Pick<AuthTicket, 'data_limit_bytes' | 'bytes_used'>): number | null =>
  t.data_limit_bytes === null ? null : t.data_limit_bytes - t.bytes_used;

export const remainingSeconds = (
  t: Pick<AuthTicket, 'time_limit_seconds' | 'seconds_used'>,
): number | null => (t.time_limit_seconds === null ? null : t.time_limit_seconds - t.seconds_used);

/** The quota that applies to a ticket: its own when set, else its profile's; null means unlimited. */
export const effectiveLimit = (own: number | null, profile: number | null): number | null => own ?? profile;

/** Usage has reached a quota (the rule accounting applies to move USED → EXHAUSTED). */
export const quotaReached = (
  t: Pick<AuthTicket, 'data_limit_bytes' | 'bytes_used' | 'time_limit_seconds' | 'seconds_used'>,
): boolean => {
  const bytesLeft = remainingBytes(t);
  const timeLeft = remainingSeconds(t);
  return (bytesLeft !== null && bytesLeft <= 0) || (timeLeft !== null && timeLeft <= 0);
};

/**
 * The status of a router's local hotspot user taken into the store: DISABLED when the router had
 * it disabled; ACTIVE when it never consumed anything; else USED, or EXHAUSTED when what it
 * consumed already reaches its effective quota. `limits` are the effective ones.
 */
export function importedStatus(
  user: { disabled: boolean; bytes_used: number; seconds_used: number },
  limits: Pick<AuthTicket, 'data_limit_bytes' | 'time_limit_seconds'>,
): TicketStatus {
  if (user.disabled) return 'DISABLED';
  if (user.bytes_used <= 0 && user.seconds_used <= 0) return 'ACTIVE';
  return quotaReached({ ...user, ...limits }) ? 'EXHAUSTED' : 'USED';
}

/** Session-Timeout: whichever ends first of the time quota and the validity; null when neither. */
export function sessionTimeout(timeLeft: number | null, expiry: Date | null, now: Date): number | null {
  const untilExpiry = expiry === null ? null : Math.floor((expiry.getTime() - now.getTime()) / 1000);
  if (timeLeft === null) return untilExpiry;
  if (untilExpiry === null) return timeLeft;
  return Math.min(timeLeft, untilExpiry);
}

/**
 * Decides one authentication. The password is checked before anything about the ticket is
 * revealed, so a wrong guess learns nothing about the status of an existing code.
 */
export function decideAuth(ticket: AuthTicket | undefined, passwordOk: boolean, now: Date): AuthDecision {
  if (!ticket) return reject('UNKNOWN_USER');
  if (!passwordOk) return reject('BAD_PASSWORD');
  if (ticket.status === 'DELETED') return reject('DELETED');
  if (ticket.status === 'DISABLED') return reject('DISABLED');
  if (ticket.status === 'EXHAUSTED') return reject('EXHAUSTED');
  const firstUse = ticket.status === 'ACTIVE' && ticket.used_at === null;
  const expiry = firstUse
    ? ticket.validity_seconds === null
      ? null
      : new Date(now.getTime() + ticket.validity_seconds * 1000)
    : effectiveExpiry(ticket);
  if (expiry && expiry.getTime() <= now.getTime()) return reject('EXPIRED');
  if (quotaReached(ticket)) return reject('EXHAUSTED', ticket.status === 'USED');
  const bytesLeft = remainingBytes(ticket);
  const timeLeft = remainingSeconds(ticket);
  const timeout = sessionTimeout(timeLeft, expiry, now);
  return {
    result: 'ACCEPT',
    firstUse: ticket.status === 'ACTIVE',
    expiresAt: firstUse && expiry ? expiry.toISOString() : null,
    grant: {
      rateLimit: ticket.rate_limit || null,
      sessionTimeout: timeout === null ? null : Math.max(1, timeout),
      totalLimitBytes: bytesLeft,
    },
  };
}
