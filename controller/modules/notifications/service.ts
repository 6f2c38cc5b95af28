// The notifications module's API: `notify` writes one outbox row (inbox entry and push copy),
// deduplicated per recipient, type and key; the inbox routes read and mark; the push job sends.
// Other modules call this service, never the tables.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import type { DeviceTokens } from './fcm-sender.js';
import * as q from './queries.js';
import { quietHoursEnd, type QuietHours } from './quiet-hours.js';
import type { DevicePlatform, NotificationsTable } from './tables.js';
import { notificationView, type NotificationView } from './view.js';

export type Channel = 'in_app' | 'push';

// Nested objects reach the push as JSON text (push-dispatcher.ts), whole in the inbox.
export type DataValue = string | number | boolean | null | { [key: string]: DataValue };

export interface NotifyInput {
  recipientId: string;
  type: string;
  title: string;
  body: string;
  /** What the app needs on tap; `type` is added. */
  data?: Record<string, DataValue>;
  /** Unique per recipient and type: the same key never makes a second notification. */
  dedupKey: string;
  channels: readonly Channel[];
  /** Holds the push back while inside the window (UTC). */
  quietHours?: QuietHours;
}

export interface NotifyResult {
  /** False when the recipient already had this type and key (nothing written). */
  created: boolean;
  id: string;
}

export interface InboxPage {
  data: NotificationView[];
  unread_count: number;
}

const MAX_DEVICES_PER_ACCOUNT = 10;

export class NotificationsService implements DeviceTokens {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Writes the notification unless it exists; `db` lets a caller write it in its own transaction. */
  async notify(input: NotifyInput, db: Db = this.db): Promise<NotifyResult> {
    if (input.channels.length === 0) throw new Error('notify needs at least one channel');
    const now = this.clock.now();
    const push = input.channels.includes('push');
    const notBefore = input.quietHours ? quietHoursEnd(now, input.quietHours) : null;
    const row: NotificationsTable = {
      id: newId(),
      client_id: input.recipientId,
      type: input.type,
      in_app: input.channels.includes('in_app') ? 1 : 0,
      push: push ? 1 : 0,
      title: input.title,
      body: input.body,
      data: JSON.stringify({ ...input.data, type: input.type }),
      dedup_key: input.dedupKey,
      created_at: iso(now),
      read_at: null,
      push_state: push ? 'PENDING' : 'SKIPPED',
      push_attempts: 0,
      push_sent_at: null,
      push_error: null,
      not_before: notBefore ? iso(notBefore) : null,
      push_next_at: push ? iso(notBefore ?? now) : null,
      push_claim: null,
      push_claim_until: null,
    };
    if (await q.insertIfNew(db, row)) return { created: true, id: row.id };
    const existing = await q.findByKey(db, input.recipientId, input.type, input.dedupKey);
    return { created: false, id: existing?.id ?? row.id };
  }

  /** Whether the recipient already has this type and key (lets a job skip work already done). */
  async exists(recipientId: string, type: string, dedupKey: string): Promise<boolean> {
    return (await q.findByKey(this.db, recipientId, type, dedupKey)) !== undefined;
  }

  countOfType(recipientId: string, type: string, db: Db = this.db): Promise<number> {
    return q.countOfType(db, recipientId, type);
  }

  async inbox(
    recipientId: string,
    page: { unread: boolean; limit: number; offset: number },
  ): Promise<InboxPage> {
    const rows = await q.listInbox(this.db, recipientId, page.unread, page.limit, page.offset);
    return { data: rows.map(notificationView), unread_count: await q.countUnread(this.db, recipientId) };
  }

  async markRead(recipientId: string, id: string): Promise<NotificationView> {
    await q.markRead(this.db, recipientId, id, iso(this.clock.now()));
    const row = await q.findInboxRow(this.db, recipientId, id);
    if (!row) throw new AppError('NOTIFICATION_NOT_FOUND', 'No notification with this id');
    return notificationView(row);
  }

  markAllRead(recipientId: string): Promise<number> {
    return q.markAllRead(this.db, recipientId, iso(this.clock.now()));
  }

  unreadCount(recipientId: string): Promise<number> {
    return q.countUnread(this.db, recipientId);
  }

  async registerDevice(recipientId: string, token: string, platform: DevicePlatform) {
    await q.upsertDevice(this.db, token, recipientId, platform, iso(this.clock.now()));
    const row = await q.findDevice(this.db, token);
    return { platform: row!.platform, registered_at: row!.created_at, updated_at: row!.updated_at };
  }

  /** The newest tokens of the recipient; older ones stay stored but get no push. */
  tokensOf(recipientId: string): Promise<string[]> {
    return q.deviceTokens(this.db, recipientId, MAX_DEVICES_PER_ACCOUNT);
  }

  async forget(token: string): Promise<void> {
    await q.deleteDevice(this.db, token);
  }
}
