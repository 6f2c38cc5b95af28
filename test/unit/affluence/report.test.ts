import { expect } from 'chai';
import { affluenceText } from '../../../controller/modules/affluence/daily-report.js';
import { dayRange, isCalendarDate, reportDate, utcDate } from '../../../controller/modules/affluence/day.js';
import { buildReport } from '../../../controller/modules/affluence/report.js';

describe('affluence report assembly', () => {
  it('fills 24 hours, sums, finds the peak (earliest on a tie) and the ratio', () => {
    const r = buildReport({
      date: '2026-11-21',
      nasId: null,
      available: true,
      hours: [
        { hour: 9, accepted: 4, rejected: 1 },
        { hour: 18, accepted: 7, rejected: 0 },
        { hour: 20, accepted: 7, rejected: 2 },
        { hour: 23, accepted: 0, rejected: 3 },
      ],
      clients: 6,
      loops: [],
    });
    expect(r.par_heure).to.have.length(24);
    expect(r.par_heure[9]).to.deep.equal({ heure: 9, connexions: 4, refus: 1 });
    expect(r.par_heure[0]).to.deep.equal({ heure: 0, connexions: 0, refus: 0 });
    expect(r).to.deep.include({ connexions: 18, refus: 6, clients: 6, pic: { heure: 18, connexions: 7 } });
    expect(r.connexions_par_client).to.equal(3);
  });

  const ratios: [number, number, number][] = [
    [10, 3, 3.33],
    [2, 3, 0.67],
    [5, 2, 2.5],
    [0, 0, 0],
  ];
  for (const [connexions, clients, expected] of ratios) {
    it(`connexions_par_client of ${connexions}/${clients} is ${expected}`, () => {
      const r = buildReport({
        date: '2026-11-21',
        nasId: null,
        available: true,
        hours: connexions ? [{ hour: 1, accepted: connexions, rejected: 0 }] : [],
        clients,
        loops: [],
      });
      expect(r.connexions_par_client).to.equal(expected);
    });
  }

  it('a day without connections has no peak hour', () => {
    const r = buildReport({
      date: '2026-11-21',
      nasId: 'n1',
      available: false,
      hours: [{ hour: 3, accepted: 0, rejected: 2 }],
      clients: 0,
      loops: [],
    });
    expect(r).to.deep.include({
      disponible: false,
      nas_id: 'n1',
      pic: { heure: null, connexions: 0 },
      refus: 2,
    });
  });

  it('writes the notification text', () => {
    const base = buildReport({
      date: '2026-11-21',
      nasId: null,
      available: true,
      hours: [
        { hour: 8, accepted: 1, rejected: 0 },
        { hour: 18, accepted: 41, rejected: 3 },
      ],
      clients: 17,
      loops: [],
    });
    expect(affluenceText(base)).to.deep.equal({
      title: 'Affluence du 21/11/2026',
      body: '42 connexions, 17 clients, pic à 18:00 (41 connexions), 3 refus.',
    });
    const quiet = buildReport({
      date: '2026-11-21',
      nasId: null,
      available: true,
      hours: [{ hour: 7, accepted: 1, rejected: 1 }],
      clients: 1,
      loops: [
        {
          mac: null,
          username: 'x',
          tentatives: 5,
          acceptes: 0,
          refus: 5,
          premiere: '',
          derniere: '',
          motif: 'REFUS_EN_SERIE',
          max_par_fenetre: 1,
          refus_consecutifs_max: 5,
        },
      ],
    });
    expect(affluenceText(quiet).body).to.equal(
      '1 connexion, 1 client, pic à 07:00 (1 connexion), 1 refus, 1 appareil en boucle.',
    );
  });
});

describe('affluence days (UTC)', () => {
  const dates: [string, boolean][] = [
    ['2026-11-21', true],
    ['2024-02-29', true],
    ['2026-02-29', false],
    ['2026-13-01', false],
    ['2026-1-01', false],
    ['21/11/2026', false],
    ['2026-11-21T00:00:00Z', false],
    ['', false],
  ];
  for (const [value, ok] of dates) {
    it(`${JSON.stringify(value)} is ${ok ? '' : 'not '}a calendar date`, () =>
      expect(isCalendarDate(value)).to.equal(ok));
  }

  it('bounds a day as a half-open ISO range', () => {
    expect(dayRange('2026-12-31')).to.deep.equal({
      from: '2026-12-31T00:00:00.000Z',
      to: '2027-01-01T00:00:00.000Z',
    });
    expect(utcDate(new Date('2026-11-21T23:59:59.999Z'))).to.equal('2026-11-21');
  });

  const runs: [string, string][] = [
    ['2026-11-21T20:00:00.000Z', '2026-11-21'],
    ['2026-11-21T23:59:00.000Z', '2026-11-21'],
    ['2026-11-22T00:30:00.000Z', '2026-11-21'],
    ['2026-11-22T19:59:59.999Z', '2026-11-21'],
    ['2026-11-22T20:00:00.000Z', '2026-11-22'],
  ];
  for (const [now, day] of runs) {
    it(`a report run at ${now} covers ${day}`, () =>
      expect(reportDate(new Date(now), '20:00')).to.equal(day));
  }
});
