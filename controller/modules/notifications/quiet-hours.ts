// Quiet hours hold a push back until the window ends; the inbox shows the notification at once.
// No RADIUS event uses them; any caller of `notify` may pass a window.

/** A daily window in UTC, `HH:MM` to `HH:MM`; it may cross midnight (22:00 to 07:00). */
export interface QuietHours {
  start: string;
  end: string;
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

function minutesOf(hhmm: string): number {
  const m = HHMM.exec(hhmm);
  if (!m) throw new Error(`bad quiet-hours time ${hhmm}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** When a push created at `now` may go: the window's end if `now` is inside it, else null (now). */
export function quietHoursEnd(now: Date, quiet: QuietHours): Date | null {
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  if (start === end) return null; // an empty window
  const minute = now.getUTCHours() * 60 + now.getUTCMinutes();
  const inside = start < end ? minute >= start && minute < end : minute >= start || minute < end;
  if (!inside) return null;
  const at = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), Math.floor(end / 60), end % 60),
  );
  if (at.getTime() <= now.getTime()) at.setUTCDate(at.getUTCDate() + 1);
  return at;
}
