// How many RADIUS sessions each NAS has open. The topology asks through this port; the reading
// belongs to the RADIUS side (radius_sessions), and `radiusOpenSessions` is its stand-in until
// RadiusService offers the same call (then controller.ts passes that instead).
import type { Db } from '../../db/database.js';

export interface OpenSessionCounter {
  /** Open sessions (no Stop yet) per NAS id of the client; NAS without any are absent. */
  openSessionsByNas(clientId: string, nasIds: readonly string[]): Promise<Map<string, number>>;
}

export function radiusOpenSessions(db: Db): OpenSessionCounter {
  return {
    async openSessionsByNas(clientId, nasIds) {
      const counts = new Map<string, number>();
      if (nasIds.length === 0) return counts;
      const rows = await db
        .selectFrom('radius_sessions')
        .select((eb) => ['nas_id', eb.fn.countAll<number>().as('open')])
        .where('client_id', '=', clientId)
        .where('stopped_at', 'is', null)
        .where('nas_id', 'in', nasIds)
        .groupBy('nas_id')
        .execute();
      for (const row of rows) counts.set(row.nas_id, Number(row.open));
      return counts;
    },
  };
}
