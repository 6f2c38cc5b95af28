// What one instance tells the others when it stores a publication (a PostgreSQL NOTIFY payload):
// `<offset> <channel length> <channel><data>`. The data rides along when the payload stays under
// PostgreSQL's limit, so the listeners fan out without reading the row back; without it (a large
// publication) they read the channel from the database. The length prefix keeps any channel name
// (spaces included) unambiguous.

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; room is left for the offset. */
const MAX_PAYLOAD_BYTES = 7900;

export interface Announcement {
  seq: number;
  channel: string;
  /** The publication's data (JSON text); undefined when it was too large to carry. */
  data?: string;
}

/** The payload after `<offset> ` (the offset is only known inside the storing statement). */
export function announcementAfterOffset(channel: string, data: string): string {
  const head = `${channel.length} ${channel}`;
  return Buffer.byteLength(head) + Buffer.byteLength(data) <= MAX_PAYLOAD_BYTES ? head + data : head;
}

/** Reads a payload; null when it is not one. */
export function parseAnnouncement(payload: string): Announcement | null {
  const a = payload.indexOf(' ');
  const b = payload.indexOf(' ', a + 1);
  if (a <= 0 || b < 0) return null;
  const seq = Number(payload.slice(0, a));
  const length = Number(payload.slice(a + 1, b));
  if (!Number.isInteger(seq) || !Number.isInteger(length) || length <= 0) return null;
  const channel = payload.slice(b + 1, b + 1 + length);
  if (channel.length !== length) return null;
  const data = payload.slice(b + 1 + length);
  return data === '' ? { seq, channel } : { seq, channel, data };
}
