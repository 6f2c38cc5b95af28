// The two reports: the administrators' fleet view and a manager's impact report.
import { AppError } from '../../core/app-error.js';
import { iso } from '../../core/clock.js';
import { addDays, routerDay } from '../usage/index.js';
import type { BandwidthDeps } from './deps.js';
import { impactFigures, type ImpactDay } from './impact.js';
import * as q from './queries.js';

/** The fleet's 24-hour split reads at most this many of the latest events. */
export const FLEET_EVENT_SAMPLE = 1000;
const FLEET_TYPES = ['THROTTLE_ON', 'USER_THROTTLED', 'ROUTER_UNREACHABLE'] as const;

export class FleetAndImpact {
  constructor(private readonly deps: BandwidthDeps) {}

  async fleet() {
    const { db, clock } = this.deps;
    const rows = await q.allProgrammesSummary(db);
    const since = iso(new Date(clock.now().getTime() - 86_400_000));
    const events = await q.latestEvents(db, since, FLEET_TYPES, FLEET_EVENT_SAMPLE + 1);
    const sample = events.slice(0, FLEET_EVENT_SAMPLE);
    const split = Object.fromEntries(FLEET_TYPES.map((t) => [t, sample.filter((e) => e.type === t).length]));
    return {
      programmes: {
        total: rows.length,
        actifs: rows.filter((r) => r.enabled === 1).length,
        en_bridage: rows.filter((r) => r.enabled === 1 && r.observed_state === 'ON').length,
        injoignables: rows.filter((r) => r.enabled === 1 && r.in_error === 1).length,
      },
      usagers_actuellement_brides: await q.countAllThrottles(db),
      evenements_24h: split,
      evenements_24h_tronques: events.length > FLEET_EVENT_SAMPLE,
    };
  }

  async impact(clientId: string, jours: number, nasId: string | undefined) {
    const { db, clock, usage } = this.deps;
    let rows = await q.listProgrammes(db, clientId);
    if (nasId !== undefined) {
      rows = rows.filter((r) => r.nas_id === nasId);
      if (rows.length === 0) throw new AppError('BW_NAS_NOT_OWNED', 'No programme of yours has this nas_id');
    }
    const now = clock.now();
    const timezone = rows[0] ? await usage.timeZone(rows[0].allocation_id) : 'UTC';
    const byDay = new Map<string, ImpactDay>();
    for (const row of rows) {
      const zone = await usage.timeZone(row.allocation_id);
      const to = routerDay(now, zone).day;
      const from = addDays(to, -(jours - 1));
      const capped = new Set((await q.cappedDays(db, clientId, row.nas_id, from, to)).map((d) => d.day));
      for (const d of await usage.dailyTotals(clientId, row.allocation_id, from, to)) {
        const day = byDay.get(d.day) ?? { jour: d.day, gb: 0, bride: false };
        day.gb += d.bytes / 1e9;
        day.bride ||= capped.has(d.day);
        byDay.set(d.day, day);
      }
    }
    const days = [...byDay.values()].sort((a, b) => a.jour.localeCompare(b.jour));
    const since = iso(new Date(now.getTime() - jours * 86_400_000));
    const entries = (await q.distinctThrottledUsers(db, clientId, since)).filter(
      (e) => nasId === undefined || e.nas_id === nasId,
    );
    const details = entries.map((e) => JSON.parse(e.detail) as { username?: string; observe_gb?: number });
    const current = await q.listThrottles(db, clientId, nasId);
    return {
      fenetre_jours: jours,
      programmes: rows.length,
      timezone,
      impact: impactFigures(days),
      usagers: {
        distincts: new Set(details.map((d) => d.username)).size,
        interventions: details.length,
        actuellement_brides: current.length,
        volume_observe_gb: Math.round(details.reduce((s, d) => s + (d.observe_gb ?? 0), 0) * 100) / 100,
      },
    };
  }
}
