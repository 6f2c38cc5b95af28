// How an expert and a mission leave the service.
import type { ExpertsTable, SupportMissionsTable, SupportReviewsTable } from './tables.js';
import { isOnlineAt, messengerUrl, statusDetail, successRate, type StatusDetail } from './rules.js';

export interface ProfessionalView {
  id: string;
  name: string;
  avatar: string | null;
  rating: number | null;
  isOnline: boolean;
  status_detail: StatusDetail;
  country: string | null;
  ticketsResolved: number;
  tags: string[];
  price: number | null;
  currency: string;
  languages: string[];
  reputation_score: number;
  success_rate: number | null;
  tier_level: string;
  messenger_url: string | null;
}

export function professionalView(e: ExpertsTable, now: Date): ProfessionalView {
  const online = isOnlineAt(e.is_online === 1, e.last_seen_at, now);
  return {
    id: e.account_id,
    name: e.name,
    avatar: e.avatar,
    rating: e.rating,
    isOnline: online,
    status_detail: statusDetail(online, e.is_busy === 1),
    country: e.country,
    ticketsResolved: e.missions_resolved,
    tags: JSON.parse(e.tags) as string[],
    // Null is "on quote"; a stored 0 would be a free offer, which the profile route refuses.
    price: e.price,
    currency: e.currency,
    languages: JSON.parse(e.languages) as string[],
    reputation_score: e.reputation_score,
    success_rate: successRate(e.missions_resolved, e.missions_closed),
    tier_level: e.tier_level,
    messenger_url: messengerUrl(e.messenger_number),
  };
}

export const reviewView = (r: SupportReviewsTable) => ({
  id: r.id,
  ticket_id: r.mission_id,
  rating: r.rating,
  comment: r.comment,
  created_at: r.created_at,
});

export const missionView = (m: SupportMissionsTable) => ({
  id: m.id,
  subject: m.subject,
  description: m.description,
  category: m.category,
  required_tier: m.required_tier,
  is_urgent: m.is_urgent === 1,
  status: m.status,
  payment_status: m.payment_status,
  price_amount: m.price_amount,
  currency: m.currency,
  assignee_id: m.assignee_id,
  claimed_at: m.claimed_at,
  resolved: m.resolved === null ? null : m.resolved === 1,
  closed_at: m.closed_at,
  created_at: m.created_at,
});

/** The full expert record for its administrators (flags included). */
export const expertAdminView = (e: ExpertsTable, now: Date) => ({
  ...professionalView(e, now),
  bio: e.bio,
  messenger_number: e.messenger_number,
  is_active: e.is_active === 1,
  is_certified: e.is_certified === 1,
  is_internal: e.is_internal === 1,
  votes: e.votes,
  activity_status: e.activity_status,
  last_mission_at: e.last_mission_at,
});
