// What every part of the hub's service works with, and the events it publishes.
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import { isOnlineAt, statusDetail } from './rules.js';
import type { ExpertsTable } from './tables.js';

/** The broker's publishing side (the realtime module's RealtimeBroker). */
export interface Publisher {
  publish(channel: string, data: unknown): Promise<unknown>;
}

export interface SupportContext {
  db: Db;
  clock: Clock;
  logger: Logger;
  realtime: Publisher;
  /** A push (and inbox entry) to a technician, once per type and key. */
  notify(input: HubPush): Promise<unknown>;
  priorRating: number;
  priorWeight: number;
}

export interface HubPush {
  recipientId: string;
  type: 'TIER_CHANGED' | 'ACTIVITY_STATUS_CHANGED';
  title: string;
  body: string;
  data: Record<string, string | number | boolean | null>;
  dedupKey: string;
}

export const PRESENCE_CHANNEL = 'support:presence';
export const MISSIONS_CHANNEL = 'support:missions';

// The events of one instance go out one after the other, in the order their changes happened
// (a claim's TICKET_CLAIMED before the BUSY it causes).
const queues = new WeakMap<SupportContext, Promise<void>>();

/** Publishes after the change is committed; a failed publication is logged, the change stands. */
export function publishAfter(ctx: SupportContext, channel: string, data: Record<string, unknown>): void {
  const next = (queues.get(ctx) ?? Promise.resolve()).then(() =>
    ctx.realtime.publish(channel, data).then(
      () => undefined,
      (err) => ctx.logger.warn({ err: String(err), channel, type: data.type }, 'realtime publish failed'),
    ),
  );
  queues.set(ctx, next);
}

export function presenceState(e: ExpertsTable, now: Date) {
  const isOnline = isOnlineAt(e.is_online === 1, e.last_seen_at, now);
  return { isOnline, status_detail: statusDetail(isOnline, e.is_busy === 1) };
}

/** PRO_STATUS_CHANGED when what the directory shows of the expert changed. */
export function publishStatusIfChanged(
  ctx: SupportContext,
  before: ExpertsTable,
  after: ExpertsTable,
  now: Date,
): Promise<void> | void {
  const a = presenceState(before, now);
  const b = presenceState(after, now);
  if (a.isOnline === b.isOnline && a.status_detail === b.status_detail) return;
  publishAfter(ctx, PRESENCE_CHANNEL, {
    type: 'PRO_STATUS_CHANGED',
    expert_id: after.account_id,
    isOnline: b.isOnline,
    status_detail: b.status_detail,
    updated_at: now.toISOString(),
  });
}
