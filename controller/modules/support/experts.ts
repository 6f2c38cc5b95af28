// Expert profiles and flags (administrators), a technician's own profile, the public directory,
// and presence.
import { AppError } from '../../core/app-error.js';
import { iso } from '../../core/clock.js';
import type { SupportContext } from './context.js';
import { publishStatusIfChanged, presenceState } from './context.js';
import * as eq from './expert-queries.js';
import * as mq from './mission-queries.js';
import { PRESENCE_EXPIRY_MS, tierRank } from './rules.js';
import type { ExpertInput, ProfileInput, DirectoryQuery } from './schemas.js';
import type { ExpertsTable } from './tables.js';
import { expertAdminView, professionalView, reviewView } from './view.js';

const LATEST_REVIEWS = 10;

export async function upsertExpert(ctx: SupportContext, accountId: string, input: ExpertInput) {
  const now = iso(ctx.clock.now());
  const existing = await eq.findExpert(ctx.db, accountId);
  const profile = profileColumns(input);
  const flags = {
    ...(input.is_active !== undefined ? { is_active: input.is_active ? 1 : 0 } : {}),
    ...(input.is_certified !== undefined ? { is_certified: input.is_certified ? 1 : 0 } : {}),
    ...(input.is_internal !== undefined ? { is_internal: input.is_internal ? 1 : 0 } : {}),
    ...(input.tier_level !== undefined
      ? { tier_level: input.tier_level, tier_rank: tierRank(input.tier_level) }
      : {}),
  };
  await ctx.db.transaction().execute(async (trx) => {
    if (!existing) {
      const row: ExpertsTable = {
        account_id: accountId,
        name: input.name ?? '',
        avatar: null,
        bio: null,
        country: null,
        tags: '[]',
        languages: '[]',
        price: null,
        currency: 'XOF',
        messenger_number: null,
        is_active: 1,
        is_certified: 0,
        is_internal: 0,
        tier_level: 'NOVICE',
        tier_rank: 0,
        tier_changed_at: null,
        is_online: 0,
        last_seen_at: null,
        is_busy: 0,
        rating: null,
        votes: 0,
        // Never rated: the prior alone, as the daily recomputation would give.
        reputation_score: Math.round(25 * (ctx.priorRating - 1) * 100) / 100,
        missions_closed: 0,
        missions_resolved: 0,
        activity_status: 'ACTIVE',
        last_mission_at: null,
        created_at: now,
        updated_at: now,
        ...profile,
        ...flags,
      };
      await eq.insertExpert(trx, row);
    } else {
      await eq.updateExpert(trx, accountId, { ...profile, ...flags, updated_at: now });
    }
    if (input.tags !== undefined) await eq.replaceTags(trx, accountId, input.tags);
  });
  const row = (await eq.findExpert(ctx.db, accountId))!;
  return { created: !existing, expert: expertAdminView(row, ctx.clock.now()) };
}

export async function updateOwnProfile(ctx: SupportContext, accountId: string, input: ProfileInput) {
  const existing = await eq.findExpert(ctx.db, accountId);
  if (!existing) throw new AppError('EXPERT_PROFILE_REQUIRED', 'No expert profile for this account');
  await ctx.db.transaction().execute(async (trx) => {
    await eq.updateExpert(trx, accountId, { ...profileColumns(input), updated_at: iso(ctx.clock.now()) });
    if (input.tags !== undefined) await eq.replaceTags(trx, accountId, input.tags);
  });
  return expertAdminView((await eq.findExpert(ctx.db, accountId))!, ctx.clock.now());
}

function profileColumns(input: ProfileInput): Partial<ExpertsTable> {
  const out: Partial<ExpertsTable> = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.avatar !== undefined) out.avatar = input.avatar;
  if (input.bio !== undefined) out.bio = input.bio;
  if (input.country !== undefined) out.country = input.country === null ? null : input.country.toUpperCase();
  if (input.tags !== undefined) out.tags = JSON.stringify(input.tags);
  if (input.languages !== undefined) out.languages = JSON.stringify(input.languages);
  if (input.price !== undefined) out.price = input.price;
  if (input.messenger_number !== undefined) out.messenger_number = input.messenger_number;
  return out;
}

export async function directory(ctx: SupportContext, query: DirectoryQuery) {
  const now = ctx.clock.now();
  const { total, rows } = await eq.directory(ctx.db, {
    onlineAfter: iso(new Date(now.getTime() - PRESENCE_EXPIRY_MS)),
    ...(query.status ? { status: query.status } : {}),
    ...(query.country ? { country: query.country } : {}),
    ...(query.tags ? { tags: query.tags } : {}),
    page: query.page,
    limit: query.limit,
  });
  return {
    data: rows.map((r) => professionalView(r, now)),
    meta: { total, page: query.page, limit: query.limit },
  };
}

export async function professional(ctx: SupportContext, id: string) {
  const row = await eq.findExpert(ctx.db, id);
  // A delisted expert stays reachable by direct link; an inactive one is gone.
  if (!row || row.is_active !== 1) throw new AppError('PROFESSIONAL_NOT_FOUND', 'No such professional');
  const reviews = await mq.latestReviews(ctx.db, id, LATEST_REVIEWS);
  return {
    ...professionalView(row, ctx.clock.now()),
    bio: row.bio,
    votes: row.votes,
    reviews: reviews.map(reviewView),
  };
}

/** The technician's expert row, active, or 403. */
export async function activeExpert(ctx: SupportContext, accountId: string): Promise<ExpertsTable> {
  const row = await eq.findExpert(ctx.db, accountId);
  if (!row || row.is_active !== 1)
    throw new AppError('EXPERT_PROFILE_REQUIRED', 'This account has no active expert profile');
  return row;
}

export async function presence(ctx: SupportContext, accountId: string, online: boolean) {
  const before = await activeExpert(ctx, accountId);
  const now = ctx.clock.now();
  await eq.setPresence(ctx.db, accountId, {
    is_online: online ? 1 : 0,
    last_seen_at: iso(now),
    updated_at: iso(now),
  });
  const after = (await eq.findExpert(ctx.db, accountId))!;
  publishStatusIfChanged(ctx, before, after, now);
  return presenceState(after, now);
}

/** Marks offline every expert silent for the expiry, publishing each change. */
export async function sweepPresence(ctx: SupportContext, now: Date) {
  const cutoff = iso(new Date(now.getTime() - PRESENCE_EXPIRY_MS));
  let expired = 0;
  for (const row of await eq.expiredPresences(ctx.db, cutoff)) {
    if (!(await eq.expirePresence(ctx.db, row.account_id, cutoff, iso(now)))) continue;
    expired++;
    // What the directory showed until the expiry: online as of the last heartbeat.
    const shown = { ...row, last_seen_at: iso(now) };
    publishStatusIfChanged(ctx, shown, { ...row, is_online: 0 }, now);
  }
  return { expired };
}
