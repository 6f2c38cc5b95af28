// The reconciler's rule for a kick (docs/api/qoe.md, "Kick"): SUCCEEDED only once the session is
// seen to end, in accounting (a Stop of that very session) or in the router's active list read
// through the agent; the router's acknowledgement alone never is. Past the deadline without that
// sight, FAILED with the reason the evidence gives.
import type { QoeActionMethod, QoeActionState } from './tables.js';

export type CommandState = 'QUEUED' | 'SENT' | 'ACKED' | 'DONE' | 'FAILED' | 'EXPIRED';

export interface KickEvidence {
  method: QoeActionMethod;
  /** The accounting session's state; null when the kick aims at no accounting session. */
  accounting: 'STOPPED' | 'OPEN' | 'UNKNOWN' | null;
  /** The agent command carrying the request, as it stands; null before it is queued. */
  command: { state: CommandState; output: unknown } | null;
  /** Whether the router's active list still holds the session; null when it was not read. */
  activeHolds: boolean | null;
  deadlinePassed: boolean;
}

export type FailReason =
  | 'SESSION_NOT_FOUND'
  | 'ROUTER_UNREACHABLE'
  | 'ROUTER_COMMAND_FAILED'
  | 'ROUTER_NAK'
  | 'ROUTER_NO_ANSWER'
  | 'SESSION_END_NOT_SEEN';

export interface KickVerdict {
  state: QoeActionState;
  endedBy?: 'ACCOUNTING_STOP' | 'ACTIVE_LIST';
  reason?: FailReason;
  /** The router's answer as the command reported it, once it is DONE. */
  routerAnswer?: string;
}

interface RemoveOutput {
  found: number;
  remaining: number;
}

const removeOutput = (output: unknown): RemoveOutput | null => {
  const o = output as Partial<RemoveOutput> | null;
  return o && typeof o.found === 'number' && typeof o.remaining === 'number'
    ? { found: o.found, remaining: o.remaining }
    : null;
};

/** The router's answer in one word: ACK, NAK, NONE (Disconnect); REMOVED, KEPT, NOT_FOUND (removal). */
export function routerAnswer(method: QoeActionMethod, output: unknown): string | undefined {
  if (method === 'RADIUS_DISCONNECT') {
    const answer = (output as { answer?: unknown } | null)?.answer;
    return typeof answer === 'string' ? answer : undefined;
  }
  const removal = removeOutput(output);
  if (!removal) return undefined;
  if (removal.found === 0) return 'NOT_FOUND';
  return removal.remaining === 0 ? 'REMOVED' : 'KEPT';
}

export function kickVerdict(e: KickEvidence): KickVerdict {
  const done = e.command?.state === 'DONE';
  const answer = done ? routerAnswer(e.method, e.command!.output) : undefined;
  const withAnswer = answer ? { routerAnswer: answer } : {};
  if (e.accounting === 'STOPPED') return { state: 'SUCCEEDED', endedBy: 'ACCOUNTING_STOP', ...withAnswer };
  // No session of the user on the router, nor in accounting: there was nothing to end, and an
  // active list without it shows no end either.
  if (answer === 'NOT_FOUND' && e.accounting !== 'OPEN')
    return { state: 'FAILED', reason: 'SESSION_NOT_FOUND', ...withAnswer };
  if (e.activeHolds === false) return { state: 'SUCCEEDED', endedBy: 'ACTIVE_LIST', ...withAnswer };
  // The removal's own count is a read of the active list after it, not the removal's reply.
  if (answer === 'REMOVED') return { state: 'SUCCEEDED', endedBy: 'ACTIVE_LIST', ...withAnswer };
  if (!e.deadlinePassed) return { state: 'RUNNING', ...withAnswer };
  return { state: 'FAILED', reason: failReason(e, answer), ...withAnswer };
}

function failReason(e: KickEvidence, answer: string | undefined): FailReason {
  switch (e.command?.state) {
    case 'DONE':
      if (answer === 'NAK') return 'ROUTER_NAK';
      if (answer === 'NONE') return 'ROUTER_NO_ANSWER';
      return 'SESSION_END_NOT_SEEN';
    case 'FAILED':
      return 'ROUTER_COMMAND_FAILED';
    default:
      // Never queued, still on its way, or expired before the agent got it.
      return 'ROUTER_UNREACHABLE';
  }
}
