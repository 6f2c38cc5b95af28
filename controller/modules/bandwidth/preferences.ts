// The manager's notification preferences (`qoe_notification_preferences`, owned here): the switch
// for bandwidth notifications (`bandwidth_push`), the network-quality switches the qoe module reads
// and writes through this class, and the quiet hours both follow, hours 0 to 23 read in each
// router's time zone. Absent row: every push on, no quiet hours.
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';

export interface BandwidthPreferences {
  bandwidth_push: boolean;
  quiet_start: number | null;
  quiet_end: number | null;
}

/** The network-quality switches kept in the same row (the qoe module's five fields add the quiet hours). */
export interface QoePushSwitches {
  urgent_push: boolean;
  daily_report_push: boolean;
  usage_alert_push: boolean;
}

export class Preferences {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async get(clientId: string): Promise<BandwidthPreferences> {
    const row = await this.db
      .selectFrom('qoe_notification_preferences')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return {
      bandwidth_push: row ? row.bandwidth_push === 1 : true,
      quiet_start: row?.quiet_start ?? null,
      quiet_end: row?.quiet_end ?? null,
    };
  }

  /** The network-quality switches; each true when the client has no row. */
  async qoeSwitches(clientId: string): Promise<QoePushSwitches> {
    const row = await this.db
      .selectFrom('qoe_notification_preferences')
      .select(['urgent_push', 'daily_report_push', 'usage_alert_push'])
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return {
      urgent_push: (row?.urgent_push ?? 1) === 1,
      daily_report_push: (row?.daily_report_push ?? 1) === 1,
      usage_alert_push: (row?.usage_alert_push ?? 1) === 1,
    };
  }

  /** Sets some network-quality switches and quiet hours in one statement; answers all of them. */
  async setQoe(
    clientId: string,
    changes: Partial<QoePushSwitches & Pick<BandwidthPreferences, 'quiet_start' | 'quiet_end'>>,
  ): Promise<QoePushSwitches & BandwidthPreferences> {
    const next = { ...(await this.get(clientId)), ...(await this.qoeSwitches(clientId)), ...changes };
    const row = {
      client_id: clientId,
      bandwidth_push: next.bandwidth_push ? 1 : 0,
      quiet_start: next.quiet_start,
      quiet_end: next.quiet_end,
      urgent_push: next.urgent_push ? 1 : 0,
      daily_report_push: next.daily_report_push ? 1 : 0,
      usage_alert_push: next.usage_alert_push ? 1 : 0,
      updated_at: iso(this.clock.now()),
    };
    const { client_id: _c, bandwidth_push: _b, ...update } = row;
    await this.db
      .insertInto('qoe_notification_preferences')
      .values(row)
      .onConflict((oc) => oc.column('client_id').doUpdateSet(update))
      .execute();
    return next;
  }

  async set(clientId: string, changes: Partial<BandwidthPreferences>): Promise<BandwidthPreferences> {
    const next = { ...(await this.get(clientId)), ...changes };
    const row = {
      client_id: clientId,
      bandwidth_push: next.bandwidth_push ? 1 : 0,
      quiet_start: next.quiet_start,
      quiet_end: next.quiet_end,
      updated_at: iso(this.clock.now()),
    };
    const { client_id: _c, ...update } = row;
    await this.db
      .insertInto('qoe_notification_preferences')
      .values(row)
      .onConflict((oc) => oc.column('client_id').doUpdateSet(update))
      .execute();
    return next;
  }
}

/** Whether `hour` (0–23, router time) is inside the quiet window (it may cross midnight). */
export function inQuietHours(hour: number, start: number | null, end: number | null): boolean {
  if (start === null || end === null || start === end) return false;
  return start < end ? hour >= start && hour < end : hour >= start || hour < end;
}
