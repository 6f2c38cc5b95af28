// Devices stuck re-authenticating in a loop. A device is a Calling-Station-Id (its MAC), or the
// User-Name when the NAS sent no MAC. It is reported when, on the day, either
//   RAFALE:          it made at least 10 attempts (accepted or refused) within some 10 minutes, or
//   REFUS_EN_SERIE:  at least 5 of its attempts in a row were refused.
// A hotspot client authenticates once per session; 10 in 10 minutes is a login page or an app
// retrying, and 5 refusals in a row is a saved wrong code replayed.
// Pure: the rule is tested as a table.

export interface LoopRule {
  windowMs: number;
  windowAttempts: number;
  rejectStreak: number;
}

export const DEFAULT_LOOP_RULE: LoopRule = { windowMs: 10 * 60_000, windowAttempts: 10, rejectStreak: 5 };

/** The fewest attempts in a day that can meet the rule (a cheap SQL pre-filter). */
export const minAttempts = (rule: LoopRule): number => Math.min(rule.windowAttempts, rule.rejectStreak);

export interface Attempt {
  /** Grouping key: the MAC (normalised) or the username. */
  device: string;
  mac: string | null;
  username: string;
  accepted: boolean;
  /** ISO 8601. */
  at: string;
}

export type LoopReason = 'RAFALE' | 'REFUS_EN_SERIE';

export interface Loop {
  mac: string | null;
  /** The username of the device's latest attempt. */
  username: string;
  tentatives: number;
  acceptes: number;
  refus: number;
  premiere: string;
  derniere: string;
  motif: LoopReason;
  /** Most attempts within any window of the rule's length. */
  max_par_fenetre: number;
  /** Longest run of refusals in a row. */
  refus_consecutifs_max: number;
}

/** Loops, most attempts first (then earliest), at most `limit`. */
export function detectLoops(
  attempts: readonly Attempt[],
  rule: LoopRule = DEFAULT_LOOP_RULE,
  limit = 50,
): Loop[] {
  const byDevice = new Map<string, Attempt[]>();
  for (const a of attempts) {
    const list = byDevice.get(a.device);
    if (list) list.push(a);
    else byDevice.set(a.device, [a]);
  }
  const loops: Loop[] = [];
  for (const list of byDevice.values()) {
    const loop = deviceLoop(
      [...list].sort((x, y) => x.at.localeCompare(y.at)),
      rule,
    );
    if (loop) loops.push(loop);
  }
  loops.sort((a, b) => b.tentatives - a.tentatives || a.premiere.localeCompare(b.premiere));
  return loops.slice(0, limit);
}

function deviceLoop(sorted: Attempt[], rule: LoopRule): Loop | null {
  const maxWindow = busiestWindow(
    sorted.map((a) => Date.parse(a.at)),
    rule.windowMs,
  );
  const streak = longestRejectStreak(sorted);
  const motif: LoopReason | null =
    maxWindow >= rule.windowAttempts ? 'RAFALE' : streak >= rule.rejectStreak ? 'REFUS_EN_SERIE' : null;
  if (!motif) return null;
  const first = sorted[0]!;
  const last = sorted[sorted.length - 1]!;
  const acceptes = sorted.filter((a) => a.accepted).length;
  return {
    mac: last.mac ?? sorted.find((a) => a.mac)?.mac ?? null,
    username: last.username,
    tentatives: sorted.length,
    acceptes,
    refus: sorted.length - acceptes,
    premiere: first.at,
    derniere: last.at,
    motif,
    max_par_fenetre: maxWindow,
    refus_consecutifs_max: streak,
  };
}

/** Most timestamps within any half-open window [t, t + windowMs); `times` sorted ascending. */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

function longestRejectStreak(sorted: readonly Attempt[]): number {
  let best = 0;
  let run = 0;
  for (const a of sorted) {
    run = a.accepted ? 0 : run + 1;
    best = Math.max(best, run);
  }
  return best;
}
