// The hub's pure rules at their edges: scores worked out by hand, tier thresholds and buffers,
// the minimum of 5 missions, quotas, silence days, presence expiry.
import { expect } from 'chai';
import {
  categoryCode,
  decideTier,
  isOnlineAt,
  messengerUrl,
  quota,
  reputation,
  silenceStatus,
  statusDetail,
  successRate,
  type Facts,
  type Review,
} from '../../../controller/modules/support/rules.js';
import type { Tier } from '../../../controller/modules/support/tables.js';

const NOW = new Date('2026-11-21T08:00:00.000Z');
const ago = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();
const r = (client: string, rating: number, days = 0, order = 0): Review => ({
  client_id: client,
  rating,
  // Same-day reviews keep their order through the milliseconds.
  created_at: new Date(Date.parse(ago(days)) + order).toISOString(),
});

describe('support rules: reputation (m = 3.5, C = 5 unless said)', () => {
  const cases: {
    name: string;
    reviews: Review[];
    m?: number;
    C?: number;
    rating: number | null;
    votes: number;
    score: number;
  }[] = [
    // B = m: 25 × 2.5
    { name: 'never rated: null rating, the prior alone', reviews: [], rating: null, votes: 0, score: 62.5 },
    // B = (17.5 + 5) / 6 = 3.75
    { name: 'one fresh 5', reviews: [r('a', 5)], rating: 5, votes: 1, score: 68.75 },
    // w = 1 and 1/2: B = (17.5 + 5 + 0.5) / 6.5 = 3.53846
    {
      name: 'a second review of one client counts half',
      reviews: [r('a', 5, 0, 0), r('a', 1, 0, 1)],
      rating: 3,
      votes: 2,
      score: 63.46,
    },
    // w = 1, 1/2, 1/3: B = (17.5 + 4 + 2 + 4/3) / (5 + 11/6) = 3.63415
    {
      name: 'a third one counts a third',
      reviews: [r('a', 4, 0, 0), r('a', 4, 0, 1), r('a', 4, 0, 2)],
      rating: 4,
      votes: 3,
      score: 65.85,
    },
    // Two clients weigh 1 each: B = (17.5 + 2) / 7 = 2.78571
    {
      name: 'two clients, one review each',
      reviews: [r('a', 1), r('b', 1)],
      rating: 1,
      votes: 2,
      score: 44.64,
    },
    // Six months old: w = 1/2, B = (17.5 + 2.5) / 5.5 = 3.63636
    {
      name: 'a review six months old weighs half',
      reviews: [r('a', 5, 182.5)],
      rating: 5,
      votes: 1,
      score: 65.91,
    },
    // No prior: B = 5
    { name: 'C = 0: the reviews alone', reviews: [r('a', 5)], C: 0, m: 3, rating: 5, votes: 1, score: 100 },
    {
      name: 'C = 0 and no review: the prior mean',
      reviews: [],
      C: 0,
      m: 3,
      rating: null,
      votes: 0,
      score: 50,
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      expect(reputation(c.reviews, NOW, c.m ?? 3.5, c.C ?? 5)).to.deep.equal({
        rating: c.rating,
        votes: c.votes,
        reputation_score: c.score,
      });
    });
});

/** `rating` as a mean over 100 reviews (exact for two decimals), or `[sum, votes]` for another mean. */
const facts = (
  free: number,
  total: number,
  resolved: number,
  rating: number | null | [number, number],
): Facts => {
  const [sum, votes] =
    rating === null ? [0, 0] : Array.isArray(rating) ? rating : [Math.round(rating * 100), 100];
  return {
    free_missions: free,
    total_missions: total,
    resolved_missions: resolved,
    votes,
    rating_sum: sum,
  };
};

describe('support rules: the daily tier decision', () => {
  const cases: {
    name: string;
    tier: Tier;
    f: Facts;
    quotaMet?: boolean;
    to: Tier | null;
    reason?: string;
  }[] = [
    {
      name: 'NOVICE at exactly 10/10/4.2/80 % is promoted',
      tier: 'NOVICE',
      f: facts(10, 10, 8, 4.2),
      to: 'PRO',
      reason: 'PROMOTION',
    },
    { name: 'NOVICE at 4.19 stays', tier: 'NOVICE', f: facts(10, 10, 8, 4.19), to: null },
    // 600 / 143 = 4.1958…, shown as 4.2: the threshold is judged on the mean itself.
    {
      name: 'NOVICE at 600/143 (shown 4.2) stays',
      tier: 'NOVICE',
      f: facts(10, 10, 8, [600, 143]),
      to: null,
    },
    {
      name: 'NOVICE at 601/143 (4.2028) is promoted',
      tier: 'NOVICE',
      f: facts(10, 10, 8, [601, 143]),
      to: 'PRO',
      reason: 'PROMOTION',
    },
    { name: 'NOVICE with 9 free missions stays', tier: 'NOVICE', f: facts(9, 12, 12, 5), to: null },
    { name: 'NOVICE with 9 missions stays', tier: 'NOVICE', f: facts(10, 9, 9, 5), to: null },
    { name: 'NOVICE at 79.99 % stays', tier: 'NOVICE', f: facts(10, 10_000, 7_999, 5), to: null },
    { name: 'NOVICE never rated stays', tier: 'NOVICE', f: facts(10, 10, 10, null), to: null },
    {
      name: 'NOVICE with its quota unmet cannot go lower',
      tier: 'NOVICE',
      f: facts(0, 0, 0, null),
      quotaMet: false,
      to: null,
    },
    {
      name: 'PRO at 20/60/4.5/90 % is promoted',
      tier: 'PRO',
      f: facts(20, 60, 54, 4.5),
      to: 'EXPERT',
      reason: 'PROMOTION',
    },
    { name: 'PRO at 4.49 stays', tier: 'PRO', f: facts(20, 60, 54, 4.49), to: null },
    {
      name: 'EXPERT at 50/200/4.8/95 % is promoted',
      tier: 'EXPERT',
      f: facts(50, 200, 190, 4.8),
      to: 'INGENIEUR',
      reason: 'PROMOTION',
    },
    { name: 'EXPERT at 94.5 % stays', tier: 'EXPERT', f: facts(50, 200, 189, 4.8), to: null },
    { name: 'INGENIEUR has no next step', tier: 'INGENIEUR', f: facts(500, 500, 500, 5), to: null },
    // Demotion buffers: 4.2 − 0.3 = 3.9 and 80 − 10 = 70 for PRO.
    {
      name: 'PRO at 3.9 with 5 missions stays (the buffer holds)',
      tier: 'PRO',
      f: facts(5, 5, 5, 3.9),
      to: null,
    },
    {
      name: 'PRO at 3.89 with 5 missions is demoted',
      tier: 'PRO',
      f: facts(5, 5, 5, 3.89),
      to: 'NOVICE',
      reason: 'RATING_BELOW_THRESHOLD',
    },
    { name: 'PRO at 1.0 with 4 missions stays (fewer than 5)', tier: 'PRO', f: facts(4, 4, 0, 1), to: null },
    { name: 'PRO at 70 % stays', tier: 'PRO', f: facts(10, 10, 7, 5), to: null },
    {
      name: 'PRO at 60 % with 5 missions is demoted',
      tier: 'PRO',
      f: facts(5, 5, 3, 5),
      to: 'NOVICE',
      reason: 'SUCCESS_RATE_BELOW_THRESHOLD',
    },
    {
      name: 'EXPERT at 4.2 (4.5 − 0.3: the buffer holds) stays',
      tier: 'EXPERT',
      f: facts(60, 60, 60, 4.2),
      to: null,
    },
    {
      name: 'EXPERT at 4.19 (under 4.5 − 0.3) is demoted one step',
      tier: 'EXPERT',
      f: facts(60, 60, 60, 4.19),
      to: 'PRO',
      reason: 'RATING_BELOW_THRESHOLD',
    },
    {
      name: 'PRO at 557/143 (3.8951, shown 3.9) is demoted',
      tier: 'PRO',
      f: facts(5, 5, 5, [557, 143]),
      to: 'NOVICE',
      reason: 'RATING_BELOW_THRESHOLD',
    },
    { name: 'INGENIEUR at 4.5 stays', tier: 'INGENIEUR', f: facts(60, 60, 60, 4.5), to: null },
    {
      name: 'PRO with its quota unmet is demoted',
      tier: 'PRO',
      f: facts(10, 10, 10, 5),
      quotaMet: false,
      to: 'NOVICE',
      reason: 'QUOTA_UNMET',
    },
    {
      name: 'demotion comes before promotion',
      tier: 'PRO',
      f: facts(20, 60, 54, 4.5),
      quotaMet: false,
      to: 'NOVICE',
      reason: 'QUOTA_UNMET',
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const d = decideTier(c.tier, c.f, c.quotaMet ?? true);
      if (c.to === null) expect(d).to.equal(null);
      else expect(d).to.deep.equal({ from: c.tier, to: c.to, reason: c.reason });
    });
});

describe('support rules: the free quota over 90 days', () => {
  const cases: {
    tier: Tier;
    paid: number;
    contributed: number;
    available: number;
    owed: number;
    met: boolean;
    suspended?: boolean;
  }[] = [
    { tier: 'NOVICE', paid: 1, contributed: 0, available: 1, owed: 1, met: false },
    { tier: 'NOVICE', paid: 1, contributed: 1, available: 1, owed: 1, met: true },
    { tier: 'PRO', paid: 3, contributed: 0, available: 1, owed: 0, met: true },
    { tier: 'PRO', paid: 4, contributed: 0, available: 1, owed: 1, met: false },
    { tier: 'PRO', paid: 8, contributed: 1, available: 1, owed: 2, met: false },
    { tier: 'EXPERT', paid: 5, contributed: 0, available: 1, owed: 0, met: true },
    { tier: 'EXPERT', paid: 6, contributed: 0, available: 1, owed: 1, met: false },
    { tier: 'INGENIEUR', paid: 9, contributed: 0, available: 1, owed: 0, met: true },
    { tier: 'INGENIEUR', paid: 10, contributed: 0, available: 1, owed: 1, met: false },
    { tier: 'PRO', paid: 40, contributed: 0, available: 0, owed: 10, met: true, suspended: true },
  ];
  for (const c of cases)
    it(`${c.tier}, ${c.paid} paid, ${c.contributed} contributed, ${c.available} free available`, () => {
      expect(
        quota({ tier: c.tier, paid: c.paid, contributed: c.contributed, freeAvailable: c.available }),
      ).to.deep.equal({
        owed: c.owed,
        contributed: c.contributed,
        suspended: c.suspended ?? false,
        met: c.met,
      });
    });
});

describe('support rules: silence', () => {
  const cases: [number, boolean, string | null][] = [
    [0, true, 'ACTIVE'],
    [44, true, 'ACTIVE'],
    [45, true, 'WARNED'],
    [89, true, 'WARNED'],
    [90, true, 'DELISTED'],
    [400, true, 'DELISTED'],
    [90, false, null],
    [45, false, null],
  ];
  for (const [days, available, expected] of cases)
    it(`${days} days, a mission ${available ? 'was' : 'was not'} available: ${expected}`, () => {
      expect(silenceStatus(days, available)).to.equal(expected);
    });
});

describe('support rules: presence, success rate, categories, messenger links', () => {
  it('is online until 90 s of silence, then OFFLINE whatever else', () => {
    const seen = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
    expect(isOnlineAt(true, seen(89_999), NOW)).to.equal(true);
    expect(isOnlineAt(true, seen(90_000), NOW)).to.equal(false);
    expect(isOnlineAt(false, seen(0), NOW)).to.equal(false);
    expect(isOnlineAt(true, null, NOW)).to.equal(false);
    expect(statusDetail(false, true)).to.equal('OFFLINE');
    expect(statusDetail(true, true)).to.equal('BUSY');
    expect(statusDetail(true, false)).to.equal('AVAILABLE');
  });

  it('has no success rate without a mission, and two decimals otherwise', () => {
    expect(successRate(0, 0)).to.equal(null);
    expect(successRate(0, 3)).to.equal(0);
    expect(successRate(8, 10)).to.equal(80);
    expect(successRate(2, 3)).to.equal(66.67);
  });

  it('reads a category in any spelling as its catalogue code', () => {
    expect(categoryCode('basic router repair')).to.equal('BASIC_ROUTER_REPAIR');
    expect(categoryCode(' Advanced-VPN configuration ')).to.equal('ADVANCED_VPN_CONFIGURATION');
    expect(categoryCode('firewall_security_audit')).to.equal('FIREWALL_SECURITY_AUDIT');
  });

  it('gives a ready link for a number and null without one', () => {
    expect(messengerUrl('22990000000')).to.equal('https://wa.me/22990000000');
    expect(messengerUrl(null)).to.equal(null);
  });
});
