// The rules that turn a raw entry of the local ticket manager's history into a sales record.
import { expect } from 'chai';
import {
  parseSalesEntry,
  entryHash,
  type ParsedSale,
} from '../../../controller/modules/sales/sales-entry.js';
import {
  monthOfTag,
  parseRouterDate,
  parseRouterDateTime,
} from '../../../controller/modules/sales/sales-dates.js';
import { normaliseMac, parsePrice } from '../../../controller/modules/sales/sales-fields.js';
import { sellerOf } from '../../../controller/modules/tickets/reseller-name.js';

const entry = (fields: string[], extra: { owner?: string; source?: string } = {}) => ({
  script_id: '*1A',
  name: fields.join('-|-'),
  owner: 'mar2026',
  comment: 'mikhmon',
  ...extra,
});

const SALE = [
  '2026-03-14',
  '10:04:59',
  'abc234',
  '500',
  '10.5.50.12',
  'AA:BB:CC:00:11:22',
  '1h',
  '1h-500F',
  'vendu par Moussa',
];

describe('sales entry rules', () => {
  const cases: [string, string[], Partial<ParsedSale>, { owner?: string; source?: string }?][] = [
    [
      'a sale with a RouterOS 7 date',
      SALE,
      {
        type: 'VENTE',
        sold_at: '2026-03-14T10:04:59.000Z',
        month: '2026-03',
        voucher_code: 'abc234',
        price_xof: 500,
        client_ip: '10.5.50.12',
        client_mac: 'AA:BB:CC:00:11:22',
        duration_label: '1h',
        profile_name: '1h-500F',
        comment: 'vendu par Moussa',
        reseller_name: 'moussa',
        expires_at: null,
      },
    ],
    [
      'a sale with a RouterOS 6 date',
      ['jan/31/2025', ...SALE.slice(1)],
      { type: 'VENTE', sold_at: '2025-01-31T10:04:59.000Z', month: '2025-01' },
    ],
    [
      'a capitalised RouterOS 6 month',
      ['Dec/01/2025', ...SALE.slice(1)],
      { sold_at: '2025-12-01T10:04:59.000Z' },
    ],
    [
      'a reconnection: empty date slot, expiry last (v7)',
      ['', ...SALE.slice(1), '2026-03-14 11:04:59'],
      {
        type: 'CONNEXION',
        sold_at: null,
        expires_at: '2026-03-14T11:04:59.000Z',
        month: '2026-03',
        price_xof: 500,
      },
    ],
    [
      'a reconnection with a v6 expiry, month from the script source',
      ['', ...SALE.slice(1), 'feb/02/2026 08:00:00'],
      { type: 'CONNEXION', expires_at: '2026-02-02T08:00:00.000Z', month: '2026-01' },
      { source: 'jan/31/2026', owner: 'jan2026' },
    ],
    [
      'a reconnection dated by the month tag only',
      ['', ...SALE.slice(1), '2026-03-14 11:04:59'],
      { type: 'CONNEXION', month: '2026-02' },
      { owner: 'feb2026' },
    ],
    [
      'a reconnection with no month anywhere',
      ['', ...SALE.slice(1), '2026-03-14 11:04:59'],
      { type: 'CONNEXION', month: null },
      { owner: 'admin' },
    ],
    [
      'a sale whose date was lost (empty slot, 9 fields)',
      ['', ...SALE.slice(1)],
      { type: 'VENTE', sold_at: null, month: null, price_xof: 500 },
    ],
    [
      'a sale whose date is unreadable',
      ['31/01/2025', ...SALE.slice(1)],
      { type: 'VENTE', sold_at: null, month: null },
    ],
    ['an impossible date', ['2026-02-30', ...SALE.slice(1)], { type: 'VENTE', sold_at: null }],
    [
      'an empty date slot whose last field is no date: a sale with its date lost',
      ['', ...SALE.slice(1), 'n/a'],
      { type: 'VENTE', sold_at: null, expires_at: null },
    ],
    [
      'a dated sale with an unreadable time, kept on its day',
      ['2026-03-14', '', ...SALE.slice(2)],
      { sold_at: '2026-03-14T00:00:00.000Z', month: '2026-03' },
    ],
    ['a price with the franc sign', [...SALE.slice(0, 3), '1000F', ...SALE.slice(4)], { price_xof: 1000 }],
    [
      'a price with spaces and FCFA',
      [...SALE.slice(0, 3), '1 000 FCFA', ...SALE.slice(4)],
      { price_xof: 1000 },
    ],
    ['a price with a thousands dot', [...SALE.slice(0, 3), '2.000', ...SALE.slice(4)], { price_xof: 2000 }],
    ['a price with zero decimals', [...SALE.slice(0, 3), '500.00', ...SALE.slice(4)], { price_xof: 500 }],
    [
      'an unreadable price',
      [...SALE.slice(0, 3), 'gratuit', ...SALE.slice(4)],
      { type: 'VENTE', price_xof: null },
    ],
    ['a missing MAC', [...SALE.slice(0, 5), '', ...SALE.slice(6)], { client_mac: null }],
    [
      'a MAC with dashes, lowercased',
      [...SALE.slice(0, 5), 'aa-bb-cc-00-11-22', ...SALE.slice(6)],
      { client_mac: 'AA:BB:CC:00:11:22' },
    ],
    ['a missing address', [...SALE.slice(0, 4), ' ', ...SALE.slice(5)], { client_ip: null }],
    [
      'a batch tag instead of a seller',
      [...SALE.slice(0, 8), 'vc-123-11.09.26'],
      { reseller_name: null, comment: 'vc-123-11.09.26' },
    ],
    [
      'a seller with spaces and capitals',
      [...SALE.slice(0, 8), 'vendu par Cheikh Tidiane'],
      { reseller_name: 'cheikhtidiane' },
    ],
    ['an empty comment', [...SALE.slice(0, 8), ''], { comment: null, reseller_name: null }],
  ];
  for (const [what, fields, expected, extra] of cases) {
    it(`reads ${what}`, () => {
      const parsed = parseSalesEntry(entry(fields, extra));
      expect(parsed.ok, JSON.stringify(parsed)).to.equal(true);
      if (parsed.ok) expect(parsed.sale).to.deep.include(expected);
    });
  }

  const unreadable: [string, string[], RegExp][] = [
    ['too few fields', SALE.slice(0, 8), /8 fields/],
    ['too many fields', [...SALE, 'x', 'y'], /11 fields/],
    ['no voucher code', [...SALE.slice(0, 2), ' ', ...SALE.slice(3)], /no voucher code/],
  ];
  for (const [what, fields, reason] of unreadable) {
    it(`leaves out an entry with ${what}`, () => {
      const parsed = parseSalesEntry(entry(fields));
      expect(parsed.ok).to.equal(false);
      if (!parsed.ok) expect(parsed.reason).to.match(reason);
    });
  }

  it('identifies an entry by its raw name and owner, not by its router id', () => {
    const a = entry(SALE);
    expect(entryHash(a)).to.equal(entryHash({ ...a, script_id: '*FF' }));
    expect(entryHash(a)).to.not.equal(entryHash({ ...a, owner: 'apr2026' }));
    expect(entryHash(a)).to.match(/^[0-9a-f]{64}$/);
  });

  it('parses dates, month tags, prices, MACs and sellers at their edges', () => {
    expect(parseRouterDate('2024-02-29')).to.equal('2024-02-29');
    expect(parseRouterDate('feb/29/2025')).to.equal(undefined);
    expect(parseRouterDate('foo/01/2025')).to.equal(undefined);
    expect(parseRouterDateTime('2026-03-14 25:00:00')).to.equal(undefined);
    expect(parseRouterDateTime('2026-03-14')).to.equal(undefined);
    expect(monthOfTag('DEC2025')).to.equal('2025-12');
    expect(monthOfTag('mar26')).to.equal(undefined);
    expect(parsePrice('500.5')).to.equal(undefined);
    expect(parsePrice('')).to.equal(undefined);
    expect(parsePrice('XOF 1500')).to.equal(1500);
    expect(normaliseMac('aabb.cc00.1122')).to.equal('AA:BB:CC:00:11:22');
    expect(normaliseMac('not-a-mac')).to.equal('not-a-mac');
    expect(sellerOf('VENDU PAR Khady')).to.equal('khady');
  });
});
