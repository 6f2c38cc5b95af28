// The pure rules of a migration, table-driven: inventory motifs and their order, the three
// proofs, and the verdict of a removal batch from its counts.
import { expect } from 'chai';
import {
  flashMo,
  judgeBatch,
  motifTexte,
  refusalMotif,
  removalDecision,
  type InventoryFacts,
  type Proof,
} from '../../../controller/modules/migration/rules.js';

const OK: InventoryFacts = { licenceActive: true, reachable: true, comptes: 2000, flashMo: 100 };

describe('migration rules', () => {
  describe('refusalMotif', () => {
    const cases: [string, Partial<InventoryFacts>, string | null][] = [
      ['a router that may migrate', {}, null],
      ['exactly 15 000 accounts', { comptes: 15_000 }, null],
      ['zero accounts (read)', { comptes: 0 }, null],
      ['exactly 25 Mo free', { flashMo: 25 }, null],
      ['licence inactive', { licenceActive: false }, 'LICENCE_RADIUS_INACTIVE'],
      ['router unreachable', { reachable: false, comptes: null }, 'ROUTEUR_INJOIGNABLE'],
      ['accounts unreadable (null is not zero)', { comptes: null }, 'INVENTAIRE_ILLISIBLE'],
      ['15 001 accounts', { comptes: 15_001 }, 'TROP_DE_COMPTES_POUR_UNE_BASCULE_AUTOMATIQUE'],
      ['24 Mo free', { flashMo: 24 }, 'ESPACE_FLASH_INSUFFISANTE'],
      [
        'licence first of all',
        { licenceActive: false, reachable: false, flashMo: 0 },
        'LICENCE_RADIUS_INACTIVE',
      ],
      ['unreachable before flash', { reachable: false, flashMo: 0 }, 'ROUTEUR_INJOIGNABLE'],
      [
        'too many before flash',
        { comptes: 20_000, flashMo: 1 },
        'TROP_DE_COMPTES_POUR_UNE_BASCULE_AUTOMATIQUE',
      ],
    ];
    for (const [name, change, motif] of cases) {
      it(name, () => {
        const facts = { ...OK, ...change };
        expect(refusalMotif(facts)).to.equal(motif);
        const text = motifTexte(refusalMotif(facts), facts);
        if (motif === null) expect(text).to.equal(null);
        else expect(text).to.be.a('string').with.length.above(10);
      });
    }
  });

  it('flashMo rounds bytes down to whole MiB; unknown is 0', () => {
    const cases: [number | null | undefined, number][] = [
      [null, 0],
      [undefined, 0],
      [0, 0],
      [25 * 1_048_576 - 1, 24],
      [25 * 1_048_576, 25],
      [1_073_741_824, 1024],
    ];
    for (const [bytes, mo] of cases) expect(flashMo(bytes), String(bytes)).to.equal(mo);
  });

  describe('removalDecision', () => {
    const all: Proof[] = ['SAUVEGARDE_CONFIRMEE', 'IMPORT_RADIUS_CONFIRME', 'ROUTEUR_JOIGNABLE'];
    const cases: [string, boolean, Proof[], string | null][] = [
      ['asked, every proof', true, all, null],
      ['not asked', false, all, 'RETRAIT_NON_DEMANDE'],
      ['backup missing', true, all.slice(1), 'PREUVE_MANQUANTE_SAUVEGARDE_CONFIRMEE'],
      ['import not confirmed', true, [all[0]!, all[2]!], 'PREUVE_MANQUANTE_IMPORT_RADIUS_CONFIRME'],
      ['router not proved reachable', true, all.slice(0, 2), 'PREUVE_MANQUANTE_ROUTEUR_JOIGNABLE'],
      ['no proof at all', true, [], 'PREUVE_MANQUANTE_SAUVEGARDE_CONFIRMEE'],
    ];
    for (const [name, asked, proofs, raison] of cases) {
      it(name, () => {
        const d = removalDecision(asked, new Set(proofs));
        if (raison === null) expect(d).to.deep.equal({ allowed: true });
        else expect(d).to.deep.equal({ allowed: false, raison });
      });
    }
  });

  describe('judgeBatch (counts, never the reply)', () => {
    const cases: [
      string,
      { count_before: number | null; count_after: number | null; requested: number },
      unknown,
    ][] = [
      [
        'all removed',
        { count_before: 501, count_after: 1, requested: 500 },
        { kind: 'COUNTED', removed: 500 },
      ],
      [
        'some removed',
        { count_before: 501, count_after: 401, requested: 500 },
        { kind: 'COUNTED', removed: 100 },
      ],
      [
        'none removed (stalled)',
        { count_before: 501, count_after: 501, requested: 500 },
        { kind: 'COUNTED', removed: 0 },
      ],
      [
        'a user added meanwhile',
        { count_before: 10, count_after: 12, requested: 5 },
        { kind: 'COUNTED', removed: 0 },
      ],
      [
        'more gone than asked (someone else removed)',
        { count_before: 10, count_after: 0, requested: 5 },
        { kind: 'COUNTED', removed: 5 },
      ],
      [
        'count before impossible',
        { count_before: null, count_after: null, requested: 0 },
        { kind: 'COUNT_FAILED' },
      ],
      [
        'count after impossible',
        { count_before: 10, count_after: null, requested: 5 },
        { kind: 'UNVERIFIED' },
      ],
      [
        'nothing requested, count after impossible',
        { count_before: 10, count_after: null, requested: 0 },
        { kind: 'COUNTED', removed: 0 },
      ],
    ];
    for (const [name, out, verdict] of cases) {
      it(name, () => expect(judgeBatch(out)).to.deep.equal(verdict));
    }
  });
});
