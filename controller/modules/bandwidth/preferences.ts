// The manager's switch for bandwidth notifications (`bandwidth_push`) and quiet hours, hours 0 to
// 23 read in each router's time zone. Absent row: push on, no quiet hours.
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';

export interface BandwidthPreferences {
  bandwidth_push: boolean;
  quiet_start: number | null;
  quiet_end: number | null;
}

export class Preferences {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async get(clientId: string): Promise<BandwidthPreferences> {
    const row = await this.db
      .selectFrom('bandwidth_preferences')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return {
      bandwidth_push: row ? row.bandwidth_push === 1 : true,
      quiet_start: row?.quiet_start ?? null,
      quiet_end: row?.quiet_end ?? null,
    };
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
      .insertInto('bandwidth_preferences')
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
