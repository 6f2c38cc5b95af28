// The hub's pure rules (docs/api/support.md): tiers and their thresholds, revenue shares, the free
// quota, the daily tier decision, silence, and the status a technician shows. No I/O, no clock:
// callers pass the facts and the time.
import type { ActivityStatus, Tier } from './tables.js';

export const TIERS: readonly Tier[] = ['NOVICE', 'PRO', 'EXPERT', 'INGENIEUR'];
export const tierRank = (t: Tier): number => TIERS.indexOf(t);

/** What it takes to enter a tier (from the one below); ratings in hundredths to compare exactly. */
export interface Step {
  to: Tier;
  free_missions: number;
  total_missions: number;
  rating: number;
  success_rate: number;
}

export const STEPS: readonly Step[] = [
  { to: 'PRO', free_missions: 10, total_missions: 10, rating: 4.2, success_rate: 80 },
  { to: 'EXPERT', free_missions: 20, total_missions: 60, rating: 4.5, success_rate: 90 },
  { to: 'INGENIEUR', free_missions: 50, total_missions: 200, rating: 4.8, success_rate: 95 },
];

export const DEMOTION_RATING_BUFFER = 0.3;
export const DEMOTION_SUCCESS_BUFFER = 10;
export const DEMOTION_MIN_MISSIONS = 5;

/** Expert / platform percent, applied at settlement (wallet). */
export const REVENUE_SHARE: Readonly<Record<Tier, { expert: number; platform: number }>> = {
  NOVICE: { expert: 60, platform: 40 },
  PRO: { expert: 75, platform: 25 },
  EXPERT: { expert: 85, platform: 15 },
  INGENIEUR: { expert: 90, platform: 10 },
};

/** One free mission owed per N paid ones over the sliding window. */
export const QUOTA_PER_PAID: Readonly<Record<Tier, number>> = { NOVICE: 1, PRO: 4, EXPERT: 6, INGENIEUR: 10 };
export const QUOTA_WINDOW_DAYS = 90;

export const SILENCE_WARNED_DAYS = 45;
export const SILENCE_DELISTED_DAYS = 90;

export const PRESENCE_EXPIRY_MS = 90_000;

export interface Facts {
  free_missions: number;
  total_missions: number;
  /** Missions closed resolved (the success rate's numerator; total_missions its denominator). */
  resolved_missions: number;
  /** Reviews and the sum of their ratings: thresholds are judged on the exact mean (see `meanRating`). */
  votes: number;
  rating_sum: number;
}

/** The mean rating as shown (two decimals), null when never rated. */
export const meanRating = (votes: number, sum: number): number | null =>
  votes === 0 ? null : Math.round((sum / votes) * 100) / 100;

const hundredths = (x: number): number => Math.round(x * 100);

/** Percent, two decimals; null when no mission was taken. */
export function successRate(resolved: number, closed: number): number | null {
  return closed === 0 ? null : Math.round((resolved * 10_000) / closed) / 100;
}

/** `resolved / total >= percent / 100`, in integers (no rounding decides a threshold). */
const successAtLeast = (f: Facts, percent: number): boolean =>
  f.total_missions > 0 && f.resolved_missions * 100 >= percent * f.total_missions;

/** The exact mean against `hundredths` (a rating in hundredths), in integers: -1, 0 or 1; null unrated. */
const compareMean = (f: Facts, hundredthsOf: number): number | null =>
  f.votes === 0 ? null : Math.sign(f.rating_sum * 100 - hundredthsOf * f.votes);

export function meetsStep(f: Facts, step: Step): boolean {
  const mean = compareMean(f, hundredths(step.rating));
  return (
    f.free_missions >= step.free_missions &&
    f.total_missions >= step.total_missions &&
    mean !== null &&
    mean >= 0 &&
    successAtLeast(f, step.success_rate)
  );
}

export interface QuotaInput {
  tier: Tier;
  paid: number;
  /** Free missions closed and supervisions made, in the window. */
  contributed: number;
  /** Free missions the technician could have claimed in the window. */
  freeAvailable: number;
}

export interface Quota {
  owed: number;
  contributed: number;
  /** Suspended when the free queue was empty: then it is met whatever was done. */
  suspended: boolean;
  met: boolean;
}

export function quota(q: QuotaInput): Quota {
  const owed = Math.floor(q.paid / QUOTA_PER_PAID[q.tier]);
  const suspended = q.freeAvailable === 0;
  return { owed, contributed: q.contributed, suspended, met: suspended || q.contributed >= owed };
}

export type TierReason =
  'PROMOTION' | 'RATING_BELOW_THRESHOLD' | 'SUCCESS_RATE_BELOW_THRESHOLD' | 'QUOTA_UNMET';

export interface TierDecision {
  from: Tier;
  to: Tier;
  reason: TierReason;
}

/** The daily decision: at most one step, down before up; null when the tier stays. */
export function decideTier(tier: Tier, f: Facts, quotaMet: boolean): TierDecision | null {
  const rank = tierRank(tier);
  if (rank > 0) {
    const below = TIERS[rank - 1]!;
    const held = STEPS[rank - 1]!;
    if (f.total_missions >= DEMOTION_MIN_MISSIONS) {
      const floorRating = hundredths(held.rating) - hundredths(DEMOTION_RATING_BUFFER);
      if ((compareMean(f, floorRating) ?? 0) < 0)
        return { from: tier, to: below, reason: 'RATING_BELOW_THRESHOLD' };
      if (!successAtLeast(f, held.success_rate - DEMOTION_SUCCESS_BUFFER))
        return { from: tier, to: below, reason: 'SUCCESS_RATE_BELOW_THRESHOLD' };
    }
    if (!quotaMet) return { from: tier, to: below, reason: 'QUOTA_UNMET' };
  }
  const next = STEPS[rank];
  if (next && meetsStep(f, next)) return { from: tier, to: next.to, reason: 'PROMOTION' };
  return null;
}

/** Whole days of silence; null when no mission was available meanwhile (the policy is skipped). */
export function silenceStatus(daysSilent: number, missionAvailable: boolean): ActivityStatus | null {
  if (!missionAvailable) return null;
  if (daysSilent >= SILENCE_DELISTED_DAYS) return 'DELISTED';
  if (daysSilent >= SILENCE_WARNED_DAYS) return 'WARNED';
  return 'ACTIVE';
}

export type StatusDetail = 'AVAILABLE' | 'BUSY' | 'OFFLINE';

export function isOnlineAt(isOnline: boolean, lastSeenAt: string | null, now: Date): boolean {
  return isOnline && lastSeenAt !== null && Date.parse(lastSeenAt) > now.getTime() - PRESENCE_EXPIRY_MS;
}

export function statusDetail(online: boolean, busy: boolean): StatusDetail {
  if (!online) return 'OFFLINE';
  return busy ? 'BUSY' : 'AVAILABLE';
}

export interface Review {
  client_id: string;
  rating: number;
  created_at: string;
}

export interface Reputation {
  rating: number | null;
  votes: number;
  reputation_score: number;
}

const HALF_LIFE_DAYS = 182.5;
const DAY_MS = 86_400_000;

/**
 * `rating` the mean, `votes` the count, `reputation_score` = 25 × (B − 1) with
 * B = (C·m + Σ w·r) / (C + Σ w), w = 0.5^(age / 182.5 days) / k, k the review's rank among the
 * same client's reviews of this expert (oldest first).
 */
export function reputation(reviews: readonly Review[], now: Date, m: number, C: number): Reputation {
  const sorted = [...reviews].sort((a, b) => a.created_at.localeCompare(b.created_at));
  const rankByClient = new Map<string, number>();
  let sw = 0;
  let swr = 0;
  let sum = 0;
  for (const r of sorted) {
    const k = (rankByClient.get(r.client_id) ?? 0) + 1;
    rankByClient.set(r.client_id, k);
    const ageDays = Math.max(0, (now.getTime() - Date.parse(r.created_at)) / DAY_MS);
    const w = Math.pow(0.5, ageDays / HALF_LIFE_DAYS) / k;
    sw += w;
    swr += w * r.rating;
    sum += r.rating;
  }
  const denominator = C + sw;
  const B = denominator === 0 ? m : (C * m + swr) / denominator;
  return {
    rating: meanRating(reviews.length, sum),
    votes: reviews.length,
    reputation_score: Math.round(Math.min(100, Math.max(0, 25 * (B - 1))) * 100) / 100,
  };
}

/** The catalogue code a category text names: upper case, words joined by `_`. */
export const categoryCode = (category: string): string =>
  category
    .trim()
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

/** A ready messenger link (WhatsApp click-to-chat) for a number of digits; null without one. */
export const messengerUrl = (digits: string | null): string | null =>
  digits ? `https://wa.me/${digits}` : null;
