// The daily work of the hub: reputation recomputed (reviews age), tiers re-evaluated (one step a
// day, TIER_CHANGED push), silence (WARNED, DELISTED with ACTIVITY_STATUS_CHANGED); and the
// progression a technician reads. Internal accounts have no progression, quota or silence.
import { iso } from '../../core/clock.js';
import type { SupportContext } from './context.js';
import { activeExpert } from './experts.js';
import * as eq from './expert-queries.js';
import * as mq from './mission-queries.js';
import {
  decideTier,
  meanRating,
  quota,
  QUOTA_WINDOW_DAYS,
  reputation,
  REVENUE_SHARE,
  silenceStatus,
  STEPS,
  successRate,
  tierRank,
  type Facts,
  type Quota,
} from './rules.js';
import type { ExpertsTable } from './tables.js';

const DAY_MS = 86_400_000;

async function factsOf(ctx: SupportContext, e: ExpertsTable): Promise<Facts> {
  const all = await mq.closedCounts(ctx.db, e.account_id, null);
  const ratings = await mq.ratingTotals(ctx.db, e.account_id);
  return {
    free_missions: all.free_closed,
    total_missions: all.closed,
    resolved_missions: all.resolved,
    votes: ratings.votes,
    rating_sum: ratings.sum,
  };
}

async function quotaOf(ctx: SupportContext, e: ExpertsTable, now: Date): Promise<Quota> {
  const since = iso(new Date(now.getTime() - QUOTA_WINDOW_DAYS * DAY_MS));
  const window = await mq.closedCounts(ctx.db, e.account_id, since);
  const supervisions = await mq.supervisionsSince(ctx.db, e.account_id, since);
  return quota({
    tier: e.tier_level,
    paid: window.closed - window.free_closed,
    // A supervision discharges the senior's free quota like a free mission.
    contributed: window.free_closed + supervisions,
    freeAvailable: await mq.availableSince(ctx.db, e.tier_rank, since, true),
  });
}

export async function progression(ctx: SupportContext, accountId: string) {
  const e = await activeExpert(ctx, accountId);
  const f = await factsOf(ctx, e);
  const q = e.is_internal === 1 ? null : await quotaOf(ctx, e, ctx.clock.now());
  const next = STEPS[tierRank(e.tier_level)];
  const rate = successRate(f.resolved_missions, f.total_missions);
  const rating = meanRating(f.votes, f.rating_sum);
  const round2 = (x: number) => Math.round(x * 100) / 100;
  return {
    current_tier: e.tier_level,
    next_tier: next?.to ?? null,
    facts: {
      free_missions: f.free_missions,
      total_missions: f.total_missions,
      rating,
      success_rate: rate,
    },
    requirements: next
      ? {
          free_missions: next.free_missions,
          total_missions: next.total_missions,
          rating: next.rating,
          success_rate: next.success_rate,
        }
      : null,
    remaining: next
      ? {
          free_missions: Math.max(0, next.free_missions - f.free_missions),
          total_missions: Math.max(0, next.total_missions - f.total_missions),
          rating: round2(Math.max(0, next.rating - (rating ?? 0))),
          success_rate: round2(Math.max(0, next.success_rate - (rate ?? 0))),
        }
      : null,
    revenue_share: REVENUE_SHARE[e.tier_level],
    next_revenue_share: next ? REVENUE_SHARE[next.to] : null,
    quota: q
      ? {
          window_days: QUOTA_WINDOW_DAYS,
          owed: q.owed,
          contributed: q.contributed,
          suspended: q.suspended,
          met: q.met,
        }
      : null,
    is_internal: e.is_internal === 1,
  };
}

export async function recomputeReputations(ctx: SupportContext, now: Date) {
  let updated = 0;
  for (const e of await eq.activeExperts(ctx.db)) {
    const rep = reputation(await mq.reviewsOf(ctx.db, e.account_id), now, ctx.priorRating, ctx.priorWeight);
    if (rep.rating === e.rating && rep.votes === e.votes && rep.reputation_score === e.reputation_score)
      continue;
    await eq.updateExpert(ctx.db, e.account_id, { ...rep, updated_at: iso(now) });
    updated++;
  }
  return { updated };
}

export async function runProgression(ctx: SupportContext, now: Date) {
  const today = iso(now).slice(0, 10);
  const changes: { expert_id: string; from: string; to: string; reason: string }[] = [];
  for (const e of await eq.activeExperts(ctx.db)) {
    if (e.is_internal === 1) continue;
    // One step a day, whatever reruns the job.
    if (e.tier_changed_at?.slice(0, 10) === today) continue;
    const q = await quotaOf(ctx, e, now);
    const decision = decideTier(e.tier_level, await factsOf(ctx, e), q.met);
    if (!decision) continue;
    await eq.setTier(ctx.db, e.account_id, decision.to, iso(now));
    changes.push({ expert_id: e.account_id, ...decision });
    await ctx.notify({
      recipientId: e.account_id,
      type: 'TIER_CHANGED',
      title: 'Niveau mis à jour',
      body: `Votre niveau passe de ${decision.from} à ${decision.to}.`,
      data: { from: decision.from, to: decision.to, reason: decision.reason },
      dedupKey: `${today}:${decision.from}:${decision.to}`,
    });
  }
  return { changed: changes.length, changes };
}

export async function runSilence(ctx: SupportContext, now: Date) {
  let changed = 0;
  for (const e of await eq.activeExperts(ctx.db)) {
    if (e.is_internal === 1) continue;
    const since = e.last_mission_at ?? e.created_at;
    const days = Math.floor((now.getTime() - Date.parse(since)) / DAY_MS);
    const available = (await mq.availableSince(ctx.db, e.tier_rank, since, false)) > 0;
    const status = silenceStatus(days, available);
    if (status === null || status === e.activity_status) continue;
    // Only the silence policy moves an expert down here; a traced mission moves it back up.
    if (status === 'ACTIVE') continue;
    await eq.setActivity(ctx.db, e.account_id, status, iso(now));
    changed++;
    await ctx.notify({
      recipientId: e.account_id,
      type: 'ACTIVITY_STATUS_CHANGED',
      title: status === 'WARNED' ? 'Activité en veille' : 'Profil retiré de l’annuaire',
      body:
        status === 'WARNED'
          ? 'Aucune mission depuis 45 jours : prenez une mission pour rester dans l’annuaire.'
          : 'Aucune mission depuis 90 jours : votre profil n’apparaît plus dans l’annuaire.',
      data: { status },
      dedupKey: `${status}:${since}`,
    });
  }
  return { changed };
}
