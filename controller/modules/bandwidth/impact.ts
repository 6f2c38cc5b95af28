// The impact report's figures (docs/api/bandwidth.md, "Impact"): pure. A day is bridled when the cap
// was on during it; days without a measurement are not in the input (never counted as zero).

export interface ImpactDay {
  jour: string;
  gb: number;
  bride: boolean;
}

export const MIN_DAYS_EACH = 3;
export const MIN_PAIRED_WEEKDAYS = 2;

const round2 = (n: number) => Math.round(n * 100) / 100;
const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
const weekdayOf = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();
const reduction = (normal: number | null, bridled: number | null) =>
  normal === null || bridled === null || normal === 0 ? null : round2(((normal - bridled) / normal) * 100);

export function impactFigures(days: readonly ImpactDay[]) {
  const bridled = days.filter((d) => d.bride);
  const normal = days.filter((d) => !d.bride);
  const bridledMean = mean(bridled.map((d) => d.gb));
  const normalMean = mean(normal.map((d) => d.gb));
  const raw = reduction(normalMean, bridledMean);
  // Weekday pairing: a market Saturday is compared with other Saturdays, not with a quiet Tuesday.
  const paired: { normal: number; bridled: number }[] = [];
  for (let wd = 0; wd < 7; wd++) {
    const b = mean(bridled.filter((d) => weekdayOf(d.jour) === wd).map((d) => d.gb));
    const n = mean(normal.filter((d) => weekdayOf(d.jour) === wd).map((d) => d.gb));
    if (b !== null && n !== null) paired.push({ normal: n, bridled: b });
  }
  const byPairs = paired.length >= MIN_PAIRED_WEEKDAYS;
  const usedNormal = byPairs ? mean(paired.map((p) => p.normal)) : normalMean;
  const usedBridled = byPairs ? mean(paired.map((p) => p.bridled)) : bridledMean;
  const reliable = bridled.length >= MIN_DAYS_EACH && normal.length >= MIN_DAYS_EACH;
  const reductionPct = reduction(usedNormal, usedBridled);
  return {
    courbe: days.map((d) => ({ jour: d.jour, gb: round2(d.gb), bride: d.bride })),
    jours_brides: bridled.length,
    jours_normaux: normal.length,
    moyenne_jour_bride_gb: bridledMean === null ? null : round2(bridledMean),
    moyenne_jour_normal_gb: normalMean === null ? null : round2(normalMean),
    reduction_pct: reliable ? reductionPct : null,
    economie_estimee_gb:
      reliable && usedNormal !== null && usedBridled !== null
        ? round2((usedNormal - usedBridled) * bridled.length)
        : null,
    fiabilite: reliable ? ('BONNE' as const) : ('INSUFFISANTE' as const),
    fiabilite_motif: reliable
      ? null
      : `Il faut au moins ${MIN_DAYS_EACH} jours bridés et ${MIN_DAYS_EACH} jours normaux mesurés pour estimer l'effet du bridage (ici ${bridled.length} bridés et ${normal.length} normaux).`,
    total_gb: round2(days.reduce((s, d) => s + d.gb, 0)),
    methode: byPairs ? ('JOURS_APPARIES' as const) : ('MOYENNE_BRUTE' as const),
    jours_semaine_apparies: paired.length,
    reduction_brute_pct: raw,
  };
}
