// What one probe reading does to a device's online state, and which push it sends, as a pure rule.
// The server measures the outage from the first reading it saw down; a reading that changes nothing
// sends nothing, so a report read twice never pushes twice (the notifications' key dedups too).
export const REMINDER_STEPS: readonly { step: number; afterMs: number; label: string }[] = [
  { step: 2, afterMs: 15 * 60_000, label: '15m' },
  { step: 3, afterMs: 2 * 3_600_000, label: '2h' },
];

export interface OnlineState {
  online: boolean | null;
  online_changed_at: string | null;
  down_since: string | null;
  down_step: number;
}

export type MonitorEvent =
  | { kind: 'down' }
  | { kind: 'still_down'; label: string; down_seconds: number }
  | { kind: 'back'; down_seconds: number };

export interface MonitorOutcome {
  next: OnlineState;
  event: MonitorEvent | null;
  /** Unique per outage and step: the notification's dedup key suffix. */
  key: string | null;
}

export function applyProbe(state: OnlineState, probe: 'up' | 'down' | 'unknown', now: Date): MonitorOutcome {
  const at = now.toISOString();
  if (probe === 'unknown') return { next: state, event: null, key: null };
  if (probe === 'up') {
    if (state.online === false && state.down_since) {
      const downSeconds = Math.max(0, Math.round((now.getTime() - Date.parse(state.down_since)) / 1000));
      return {
        next: { online: true, online_changed_at: at, down_since: null, down_step: 0 },
        event: { kind: 'back', down_seconds: downSeconds },
        key: `${state.down_since}:back`,
      };
    }
    if (state.online === true) return { next: state, event: null, key: null };
    return {
      next: { online: true, online_changed_at: at, down_since: null, down_step: 0 },
      event: null,
      key: null,
    };
  }
  if (state.online !== false || !state.down_since) {
    return {
      next: { online: false, online_changed_at: at, down_since: at, down_step: 1 },
      event: { kind: 'down' },
      key: `${at}:down`,
    };
  }
  const elapsed = now.getTime() - Date.parse(state.down_since);
  // the latest step reached only: a job that ran late does not send two reminders at once
  const due = [...REMINDER_STEPS].reverse().find((r) => elapsed >= r.afterMs);
  if (!due || due.step <= state.down_step) return { next: state, event: null, key: null };
  return {
    next: { ...state, down_step: due.step },
    event: { kind: 'still_down', label: due.label, down_seconds: Math.round(elapsed / 1000) },
    key: `${state.down_since}:${due.label}`,
  };
}
