// What one instance tells the others when it stores a publication (a PostgreSQL NOTIFY payload):
// `<offset> <channel length> <channel>`, ids only. The data stays in the database, the reference
// every listener reads it from (never in a payload any LISTENer of the database sees, never
// against PostgreSQL's 8,000-byte limit); the publishing instance keeps its own in memory until
// its announcement comes back. The length prefix keeps any channel name (spaces included)
// unambiguous.

export interface Announcement {
  seq: number;
  channel: string;
}

/** The payload after `<offset> ` (the offset is only known inside the storing statement). */
export function announcementAfterOffset(channel: string): string {
  return `${channel.length} ${channel}`;
}

/** Reads a payload; null when it is not one (anything after the channel included). */
export function parseAnnouncement(payload: string): Announcement | null {
  const a = payload.indexOf(' ');
  const b = payload.indexOf(' ', a + 1);
  if (a <= 0 || b < 0) return null;
  const seq = Number(payload.slice(0, a));
  const length = Number(payload.slice(a + 1, b));
  if (!Number.isInteger(seq) || !Number.isInteger(length) || length <= 0) return null;
  const channel = payload.slice(b + 1);
  if (channel.length !== length) return null;
  return { seq, channel };
}
