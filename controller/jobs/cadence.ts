// When a scheduled job is next due. Pure, so its rules are tested as a table.

export type Cadence = { everyMs: number } | { dailyAtUtc: string };

/** The first due time strictly after `now`. */
export function nextRun(cadence: Cadence, now: Date): Date {
  if ('everyMs' in cadence) return new Date(now.getTime() + cadence.everyMs);
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(cadence.dailyAtUtc);
  if (!m) throw new Error(`bad daily time ${cadence.dailyAtUtc}`);
  const at = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), Number(m[1]), Number(m[2])),
  );
  if (at.getTime() <= now.getTime()) at.setUTCDate(at.getUTCDate() + 1);
  return at;
}
