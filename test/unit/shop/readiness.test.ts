// The readiness rule as a table: facts in, failing checks, state and delivery source out.
import { expect } from 'chai';
import {
  judgeReadiness,
  READINESS_CODES,
  type ReadinessFacts,
} from '../../../controller/modules/shop/readiness.js';

const linked = (tunnel: 'CONNECTED' | 'DISCONNECTED') => ({
  allocation_id: 'a1',
  serial: 'S1',
  tunnel_status: tunnel,
  tunnel_last_seen_at: null,
});

const READY: ReadinessFacts = {
  licence: { active: true, plan_code: 'RADIUS_ANNUAL', expires_at: '2027-11-21T08:00:00.000Z' },
  store: { has_profile: true, store_slug: 'chez-awa' },
  offers_count: 2,
  vouchers_available: 5,
  stock_total: 5,
  radius_refill_available: true,
  router: linked('CONNECTED'),
};

type Row = [string, Partial<ReadinessFacts>, string[], string];

const ROWS: Row[] = [
  ['everything there', {}, [], 'STOCK'],
  ['zero stock, RADIUS refills', { vouchers_available: 0, stock_total: 0 }, [], 'RADIUS'],
  [
    'zero stock, no RADIUS, link up',
    { vouchers_available: 0, stock_total: 0, radius_refill_available: false },
    [],
    'DIRECT',
  ],
  [
    'zero stock, no RADIUS, link down',
    { vouchers_available: 0, stock_total: 0, radius_refill_available: false, router: linked('DISCONNECTED') },
    ['NO_STOCK'],
    'NONE',
  ],
  [
    'stock only for hidden profiles, no other source',
    { vouchers_available: 0, stock_total: 7, radius_refill_available: false, router: linked('DISCONNECTED') },
    ['DELIVERY_IMPOSSIBLE'],
    'NONE',
  ],
  [
    'stock only for hidden profiles, link up',
    { vouchers_available: 0, stock_total: 7, radius_refill_available: false },
    [],
    'DIRECT',
  ],
  [
    'stock with the link down still delivers',
    { radius_refill_available: false, router: linked('DISCONNECTED') },
    [],
    'STOCK',
  ],
  [
    'nothing at all',
    {
      licence: { active: false, plan_code: null, expires_at: null },
      store: { has_profile: false, store_slug: null },
      offers_count: 0,
      vouchers_available: 0,
      stock_total: 0,
      radius_refill_available: false,
      router: null,
    },
    ['NO_LICENSE', 'NO_STORE_PROFILE', 'NO_SLUG', 'NO_OFFERS', 'ROUTER_NOT_LINKED', 'NO_STOCK'],
    'NONE',
  ],
  ['no slug only', { store: { has_profile: true, store_slug: null } }, ['NO_SLUG'], 'STOCK'],
  ['no offers and no router', { offers_count: 0, router: null }, ['NO_OFFERS', 'ROUTER_NOT_LINKED'], 'STOCK'],
  [
    'no licence only',
    { licence: { active: false, plan_code: null, expires_at: null } },
    ['NO_LICENSE'],
    'STOCK',
  ],
];

describe('shop readiness rule', () => {
  for (const [name, over, failing, source] of ROWS) {
    it(name, () => {
      const r = judgeReadiness({ ...READY, ...over });
      expect(r.checks.map((c) => c.code)).to.deep.equal([...READINESS_CODES]);
      expect(r.checks.filter((c) => !c.ok).map((c) => c.code)).to.deep.equal(failing);
      expect(r.state).to.equal(failing[0] ?? 'READY');
      expect(r.can_sell).to.equal(failing.length === 0);
      expect(r.delivery.source).to.equal(source);
      expect(r.delivery.possible).to.equal(source !== 'NONE');
      // Delivery NONE is always named by exactly one of the two delivery checks.
      const delivery = failing.filter((c) => c === 'NO_STOCK' || c === 'DELIVERY_IMPOSSIBLE');
      expect(delivery.length).to.equal(source === 'NONE' ? 1 : 0);
      expect(r.blocking_reason).to.equal(failing.length ? r.checks.find((c) => !c.ok)!.detail : null);
      for (const c of r.checks)
        expect(c.ok ? [c.detail, c.action] : [typeof c.detail, typeof c.action]).to.deep.equal(
          c.ok ? [null, null] : ['string', 'string'],
        );
    });
  }
});
