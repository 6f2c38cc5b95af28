/** What happens to the push copy of a notification. SKIPPED: no push channel, or nowhere to send it. */
export type PushState = 'PENDING' | 'SENT' | 'FAILED' | 'SKIPPED';

export const PUSH_STATES = ['PENDING', 'SENT', 'FAILED', 'SKIPPED'] as const;

/** The outbox: one row per notification to one recipient (an account). */
export interface NotificationsTable {
  id: string;
  /** The recipient account (a client for every RADIUS event). */
  client_id: string;
  type: string;
  /** 1 when the notification is listed in the app's inbox. */
  in_app: number;
  /** 1 when a push copy is to be sent (its progress is push_state). */
  push: number;
  title: string;
  body: string;
  /** JSON object; its `type` is the notification type (what the app opens on tap). */
  data: string;
  /** Unique per recipient and type: a replayed event finds the row it already made. */
  dedup_key: string;
  created_at: string;
  read_at: string | null;
  push_state: PushState;
  push_attempts: number;
  push_sent_at: string | null;
  push_error: string | null;
  /** Quiet hours: the push waits until then (the inbox shows the notification at once). */
  not_before: string | null;
  /** When the push is next due: not_before at first, then the retry backoff. */
  push_next_at: string | null;
  /** The claim of the dispatcher run sending it, and until when that claim holds. */
  push_claim: string | null;
  push_claim_until: string | null;
}

export type DevicePlatform = 'android' | 'ios' | 'web';

export const DEVICE_PLATFORMS = ['android', 'ios', 'web'] as const;

/** A push token registered by the app; a token belongs to the account that registered it last. */
export interface NotificationDevicesTable {
  token: string;
  client_id: string;
  platform: DevicePlatform;
  created_at: string;
  updated_at: string;
}

export interface NotificationsTables {
  notifications: NotificationsTable;
  notification_devices: NotificationDevicesTable;
}
