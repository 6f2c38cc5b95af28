import type { NotificationsTable } from './tables.js';

/** A notification as the app reads it in its inbox. */
export interface NotificationView {
  id: string;
  type: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
  channels: string[];
  created_at: string;
  read: boolean;
  read_at: string | null;
}

export function notificationView(row: NotificationsTable): NotificationView {
  return {
    id: row.id,
    type: row.type,
    title: row.title,
    body: row.body,
    data: JSON.parse(row.data) as Record<string, unknown>,
    channels: [...(row.in_app ? ['in_app'] : []), ...(row.push ? ['push'] : [])],
    created_at: row.created_at,
    read: row.read_at !== null,
    read_at: row.read_at,
  };
}
