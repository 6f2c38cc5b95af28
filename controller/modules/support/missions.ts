// Missions: posting a free one, the open list, claim, close, review, notes, supervision, and the
// bounty announcement the wallet calls once a paid mission's funds are held.
import { AppError } from '../../core/app-error.js';
import { iso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { isUniqueViolation } from '../../db/errors.js';
import { MISSIONS_CHANNEL, PRESENCE_CHANNEL, publishAfter, publishStatusIfChanged } from './context.js';
import type { SupportContext } from './context.js';
import { activeExpert } from './experts.js';
import * as eq from './expert-queries.js';
import * as mq from './mission-queries.js';
import { categoryCode, reputation, tierRank } from './rules.js';
import type { MissionInput, ReviewInput, SuperviseInput } from './schemas.js';
import type { MissionStatus, PaymentStatus, SupportMissionsTable } from './tables.js';
import { missionView } from './view.js';

export interface NewMission extends MissionInput {
  /** The wallet's paid missions start PENDING_PAYMENT with their amount; free ones OPEN without. */
  status?: MissionStatus;
  payment_status?: PaymentStatus;
  price_amount?: number | null;
}

export async function createMission(ctx: SupportContext, clientId: string, input: NewMission) {
  const code = categoryCode(input.category);
  const required = (await mq.categoryTier(ctx.db, code)) ?? 'NOVICE';
  const row: SupportMissionsTable = {
    id: newId(),
    client_id: clientId,
    subject: input.subject,
    description: input.description ?? '',
    category: code,
    required_tier: required,
    required_rank: tierRank(required),
    is_urgent: input.is_urgent ? 1 : 0,
    status: input.status ?? 'OPEN',
    payment_status: input.payment_status ?? 'FREE',
    price_amount: input.price_amount ?? null,
    currency: 'XOF',
    assignee_id: null,
    claimed_at: null,
    resolved: null,
    closed_at: null,
    created_at: iso(ctx.clock.now()),
  };
  await mq.insertMission(ctx.db, row);
  return missionView(row);
}

/** A mission as a technician may see it: PENDING_PAYMENT is not there for them. */
async function visibleMission(ctx: SupportContext, id: string): Promise<SupportMissionsTable> {
  const m = await mq.findMission(ctx.db, id);
  if (!m || m.status === 'PENDING_PAYMENT') throw new AppError('MISSION_NOT_FOUND', 'No such mission');
  return m;
}

export async function openMissions(ctx: SupportContext, accountId: string, limit: number) {
  await activeExpert(ctx, accountId);
  return (await mq.openMissions(ctx.db, limit)).map(missionView);
}

export async function claim(ctx: SupportContext, accountId: string, missionId: string) {
  const expert = await activeExpert(ctx, accountId);
  const mission = await visibleMission(ctx, missionId);
  if (mission.required_rank > expert.tier_rank)
    throw new AppError('TIER_TOO_LOW', `This mission needs ${mission.required_tier}`, {
      details: { required_tier: mission.required_tier, current_tier: expert.tier_level },
    });
  const now = ctx.clock.now();
  // One conditional update decides: the first writer changes the row, every other one finds it taken.
  if (!(await mq.claim(ctx.db, missionId, accountId, iso(now))))
    throw new AppError('MISSION_ALREADY_CLAIMED', 'Another technician took this mission first');
  const busy = mission.is_urgent === 1 ? 1 : expert.is_busy;
  // A claim is a traced mission: it ends any silence warning or delisting.
  await eq.updateExpert(ctx.db, accountId, {
    ...(mission.is_urgent === 1 ? { is_busy: 1 } : {}),
    last_mission_at: iso(now),
    activity_status: 'ACTIVE',
    updated_at: iso(now),
  });
  publishAfter(ctx, PRESENCE_CHANNEL, {
    type: 'TICKET_CLAIMED',
    ticket_id: missionId,
    expert_id: accountId,
    updated_at: iso(now),
  });
  publishStatusIfChanged(ctx, expert, { ...expert, is_busy: busy }, now);
  return missionView((await mq.findMission(ctx.db, missionId))!);
}

export async function close(ctx: SupportContext, accountId: string, missionId: string, resolved: boolean) {
  const expert = await activeExpert(ctx, accountId);
  const mission = await visibleMission(ctx, missionId);
  if (mission.assignee_id !== accountId) throw new AppError('NOT_ASSIGNED', 'This mission is not yours');
  const now = ctx.clock.now();
  let busy = 0;
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await mq.close(trx, missionId, accountId, resolved, iso(now))))
      throw new AppError('MISSION_ALREADY_CLOSED', 'This mission is already closed');
    // Back to AVAILABLE only when no other urgent mission is still open: all are read again.
    busy = (await mq.openUrgentCount(trx, accountId)) > 0 ? 1 : 0;
    await eq.recordClose(trx, accountId, resolved, busy, iso(now));
  });
  publishStatusIfChanged(ctx, expert, { ...expert, is_busy: busy }, now);
  return missionView((await mq.findMission(ctx.db, missionId))!);
}

export async function review(ctx: SupportContext, clientId: string, missionId: string, input: ReviewInput) {
  const mission = await mq.findMission(ctx.db, missionId);
  if (!mission || mission.client_id !== clientId) throw new AppError('MISSION_NOT_FOUND', 'No such mission');
  // Only the client whose mission this expert really took.
  if (!mission.assignee_id) throw new AppError('REVIEW_NOT_ALLOWED', 'No technician took this mission');
  const expertId = mission.assignee_id;
  const now = ctx.clock.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // Touching the expert first locks its row (PostgreSQL): two reviews at once are counted in
      // turn, the second reading the first's row.
      await eq.updateExpert(trx, expertId, { updated_at: iso(now) });
      await mq.insertReview(trx, {
        id: newId(),
        mission_id: missionId,
        expert_id: expertId,
        client_id: clientId,
        rating: input.rating,
        comment: input.comment ?? null,
        created_at: iso(now),
      });
      const rep = reputation(await mq.reviewsOf(trx, expertId), now, ctx.priorRating, ctx.priorWeight);
      await eq.updateExpert(trx, expertId, { ...rep, updated_at: iso(now) });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('ALREADY_REVIEWED', 'This mission was already reviewed');
    throw err;
  }
  const e = (await eq.findExpert(ctx.db, expertId))!;
  return { expert_id: expertId, rating: e.rating, votes: e.votes, reputation_score: e.reputation_score };
}

async function assignedMission(ctx: SupportContext, accountId: string, missionId: string) {
  await activeExpert(ctx, accountId);
  const mission = await visibleMission(ctx, missionId);
  if (mission.assignee_id !== accountId) throw new AppError('NOT_ASSIGNED', 'Only the assigned technician');
  return mission;
}

const noteView = (n: { id: string; author_id: string; content: string; created_at: string }) => ({
  id: n.id,
  author_id: n.author_id,
  content: n.content,
  created_at: n.created_at,
});

export async function addNote(ctx: SupportContext, accountId: string, missionId: string, content: string) {
  await assignedMission(ctx, accountId, missionId);
  const row = {
    id: newId(),
    mission_id: missionId,
    author_id: accountId,
    content,
    created_at: iso(ctx.clock.now()),
  };
  await mq.insertNote(ctx.db, row);
  return noteView(row);
}

export async function notes(ctx: SupportContext, accountId: string, missionId: string) {
  await assignedMission(ctx, accountId, missionId);
  return (await mq.notesOf(ctx.db, missionId)).map(noteView);
}

export async function supervise(
  ctx: SupportContext,
  accountId: string,
  missionId: string,
  input: SuperviseInput,
) {
  const supervisor = await activeExpert(ctx, accountId);
  // EXPERT and above, or an internal account whatever its tier.
  if (supervisor.is_internal !== 1 && supervisor.tier_rank < tierRank('EXPERT'))
    throw new AppError('TIER_TOO_LOW', 'Supervision needs EXPERT or above', {
      details: { required_tier: 'EXPERT', current_tier: supervisor.tier_level },
    });
  const mission = await visibleMission(ctx, missionId);
  if (mission.assignee_id === accountId)
    throw new AppError('SELF_SUPERVISION', 'You cannot supervise your own work');
  if (await mq.findSupervision(ctx.db, missionId))
    throw new AppError('ALREADY_SUPERVISED', 'This mission was already supervised');
  if (mission.status !== 'CLOSED' || !mission.assignee_id)
    throw new AppError('MISSION_NOT_CLOSED', 'Only a closed mission can be supervised');
  const row = {
    id: newId(),
    mission_id: missionId,
    supervisor_id: accountId,
    verdict: input.verdict,
    comment: input.comment ?? null,
    created_at: iso(ctx.clock.now()),
  };
  try {
    await mq.insertSupervision(ctx.db, row);
  } catch (err) {
    if (isUniqueViolation(err))
      throw new AppError('ALREADY_SUPERVISED', 'This mission was already supervised');
    throw err;
  }
  return {
    id: row.id,
    ticket_id: missionId,
    verdict: row.verdict,
    comment: row.comment,
    created_at: row.created_at,
  };
}

/** NEW_BOUNTY_TICKET on support:missions, for a paid mission whose funds are held (wallet). */
export async function announceBounty(ctx: SupportContext, missionId: string): Promise<void> {
  const m = await mq.findMission(ctx.db, missionId);
  if (!m) throw new AppError('MISSION_NOT_FOUND', 'No such mission');
  // Only an open mission whose funds are held: a pending, free or settled one is never a bounty.
  if (m.status !== 'OPEN' || m.payment_status !== 'ESCROWED')
    throw new AppError('MISSION_NOT_ESCROWED', 'Only an open mission with its funds held is announced');
  await ctx.realtime.publish(MISSIONS_CHANNEL, {
    type: 'NEW_BOUNTY_TICKET',
    ticket_id: m.id,
    subject: m.subject,
    category: m.category,
    bounty_amount: m.price_amount,
    currency: m.currency,
    is_urgent: m.is_urgent === 1,
    created_at: m.created_at,
  });
}
