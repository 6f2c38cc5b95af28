// The affluence of a client's hotspots for one UTC day, from the RADIUS authentication log:
// accepted and refused authentications per hour, distinct devices, and devices stuck in a loop.
import { AppError } from '../../core/app-error.js';
import type { AuthLog, DayScope } from './auth-log.js';
import type { Clock } from '../../core/clock.js';
import { dayRange, utcDate } from './day.js';
import { DEFAULT_LOOP_RULE, detectLoops, minAttempts, type LoopRule } from './loops.js';
import { buildReport, type AffluenceReport, type HourCount } from './report.js';
import type { RadiusRouters } from './routers.js';

export interface AffluenceQuery {
  /** YYYY-MM-DD (UTC); today by the controller's clock when absent. */
  date?: string | undefined;
  nasId?: string | undefined;
}

export class AffluenceService {
  constructor(
    private readonly clock: Clock,
    private readonly log: AuthLog,
    private readonly routers: RadiusRouters,
    private readonly rule: LoopRule = DEFAULT_LOOP_RULE,
  ) {}

  async report(clientId: string, query: AffluenceQuery = {}): Promise<AffluenceReport> {
    const date = query.date ?? utcDate(this.clock.now());
    const nasId = query.nasId ?? null;
    const scope = { clientId, nasId, ...dayRange(date) };
    const hours = await this.#hours(scope);
    const active = hours.length > 0;
    // Only read when the day is empty: a day with rows has a data source by definition.
    const known = active ? true : await this.#hasSource(clientId, nasId);
    if (nasId && !known) throw new AppError('NAS_NOT_FOUND', 'No RADIUS router with this id');
    if (!active) {
      return buildReport({ date, nasId, available: known, hours: [], clients: 0, loops: [] });
    }
    const clients = await this.log.distinctClients(scope);
    const attempts = await this.log.candidateAttempts(scope, minAttempts(this.rule));
    const loops = detectLoops(
      attempts.map((a) => ({
        device: a.device,
        mac: a.calling_station_id || null,
        username: a.username,
        accepted: a.result === 'ACCEPT',
        at: a.at,
      })),
      this.rule,
    );
    return buildReport({ date, nasId, available: true, hours, clients, loops });
  }

  /** Clients with at least one authentication on the day (the daily report's recipients). */
  clientsWithActivity(date: string): Promise<string[]> {
    const { from, to } = dayRange(date);
    return this.log.activeClients(from, to);
  }

  async #hours(scope: DayScope): Promise<HourCount[]> {
    const byHour = new Map<number, HourCount>();
    for (const r of await this.log.hourly(scope)) {
      const h = byHour.get(r.hour) ?? { hour: r.hour, accepted: 0, rejected: 0 };
      if (r.result === 'ACCEPT') h.accepted += r.n;
      else h.rejected += r.n;
      byHour.set(r.hour, h);
    }
    return [...byHour.values()];
  }

  /** A data source exists: a live router (of that id), or any authentication ever logged. */
  async #hasSource(clientId: string, nasId: string | null): Promise<boolean> {
    const routers = await this.routers.routerIds(clientId);
    if (nasId ? routers.includes(nasId) : routers.length > 0) return true;
    return this.log.everLogged(clientId, nasId);
  }
}
