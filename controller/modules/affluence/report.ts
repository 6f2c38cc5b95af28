// The affluence answer of one UTC day from the day's aggregates. Pure.
import type { Loop } from './loops.js';

export interface HourCount {
  /** 0 to 23, UTC. */
  hour: number;
  accepted: number;
  rejected: number;
}

export interface HourFigures {
  heure: number;
  connexions: number;
  refus: number;
}

export interface AffluenceReport {
  date: string;
  nas_id: string | null;
  disponible: boolean;
  connexions: number;
  clients: number;
  refus: number;
  /** The busiest hour by accepted authentications (the earliest on a tie); heure null on a day without any. */
  pic: { heure: number | null; connexions: number };
  connexions_par_client: number;
  par_heure: HourFigures[];
  boucles: Loop[];
}

export interface DayFigures {
  date: string;
  nasId: string | null;
  available: boolean;
  hours: readonly HourCount[];
  /** Distinct devices among accepted authentications. */
  clients: number;
  loops: Loop[];
}

export function buildReport(f: DayFigures): AffluenceReport {
  const par_heure: HourFigures[] = Array.from({ length: 24 }, (_, heure) => ({
    heure,
    connexions: 0,
    refus: 0,
  }));
  for (const h of f.hours) {
    const slot = par_heure[h.hour];
    if (!slot) continue; // not an hour: a malformed timestamp, never counted
    slot.connexions += h.accepted;
    slot.refus += h.rejected;
  }
  const connexions = par_heure.reduce((n, h) => n + h.connexions, 0);
  const refus = par_heure.reduce((n, h) => n + h.refus, 0);
  let pic: AffluenceReport['pic'] = { heure: null, connexions: 0 };
  for (const h of par_heure)
    if (h.connexions > pic.connexions) pic = { heure: h.heure, connexions: h.connexions };
  return {
    date: f.date,
    nas_id: f.nasId,
    disponible: f.available,
    connexions,
    clients: f.clients,
    refus,
    pic,
    connexions_par_client: f.clients > 0 ? Math.round((connexions / f.clients) * 100) / 100 : 0,
    par_heure,
    boucles: f.loops,
  };
}
