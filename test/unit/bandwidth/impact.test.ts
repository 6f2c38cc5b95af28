// The impact report's figures on seeded days: paired weekdays, raw means, too few days, a rise.
import { expect } from 'chai';
import { impactFigures, type ImpactDay } from '../../../controller/modules/bandwidth/impact.js';

// 2026-11-02 is a Monday.
const day = (offset: number, gb: number, bride: boolean): ImpactDay => {
  const d = new Date(Date.UTC(2026, 10, 2 + offset));
  return { jour: d.toISOString().slice(0, 10), gb, bride };
};

describe('bandwidth impact figures', () => {
  it('pairs weekdays when two of them have both kinds of day', () => {
    const days = [
      day(0, 10, false),
      day(7, 6, true),
      day(1, 20, false),
      day(8, 10, true),
      day(2, 100, false),
      day(3, 8, true),
    ];
    const f = impactFigures(days);
    expect(f.methode).to.equal('JOURS_APPARIES');
    expect(f.jours_semaine_apparies).to.equal(2);
    // Mondays 10 → 6, Tuesdays 20 → 10: normal 15, bridled 8.
    expect(f.reduction_pct).to.equal(46.67);
    expect(f.economie_estimee_gb).to.equal(21);
    expect(f.fiabilite).to.equal('BONNE');
    // The raw figure keeps every day: normal 43.33, bridled 8.
    expect(f.reduction_brute_pct).to.equal(81.54);
  });

  it('falls back to raw means with fewer than two paired weekdays', () => {
    const days = [
      day(0, 10, false),
      day(7, 5, true),
      day(1, 10, false),
      day(2, 10, false),
      day(3, 5, true),
      day(4, 5, true),
    ];
    const f = impactFigures(days);
    expect(f.methode).to.equal('MOYENNE_BRUTE');
    expect(f.jours_semaine_apparies).to.equal(1);
    expect(f.reduction_pct).to.equal(50);
    expect(f.reduction_brute_pct).to.equal(50);
  });

  it('answers INSUFFISANTE with nulls and a French reason under 3 days of a kind', () => {
    const f = impactFigures([
      day(0, 10, false),
      day(1, 10, false),
      day(2, 10, false),
      day(3, 5, true),
      day(4, 5, true),
    ]);
    expect(f.fiabilite).to.equal('INSUFFISANTE');
    expect(f.reduction_pct).to.equal(null);
    expect(f.economie_estimee_gb).to.equal(null);
    expect(f.fiabilite_motif).to.match(/au moins 3 jours bridés/);
    expect(f.reduction_brute_pct).to.equal(50);
  });

  it('shows a negative reduction as it is', () => {
    const days = [0, 1, 2].map((i) => day(i, 5, false)).concat([3, 4, 5].map((i) => day(i, 10, true)));
    expect(impactFigures(days).reduction_pct).to.equal(-100);
  });

  it('leaves unmeasured days out (they are not in the input) and counts no zero day', () => {
    const f = impactFigures([day(0, 10, false)]);
    expect(f.courbe).to.deep.equal([{ jour: '2026-11-02', gb: 10, bride: false }]);
    expect(f.total_gb).to.equal(10);
    expect(f.moyenne_jour_bride_gb).to.equal(null);
  });
});
