// The technician hub's tables: experts (one row per technician account listed or not), their tags,
// the category catalogue, missions, reviews, notes and supervisions.
export type Tier = 'NOVICE' | 'PRO' | 'EXPERT' | 'INGENIEUR';
export type ActivityStatus = 'ACTIVE' | 'WARNED' | 'DELISTED';
export type MissionStatus = 'PENDING_PAYMENT' | 'OPEN' | 'CLOSED' | 'CANCELLED';
export type PaymentStatus = 'FREE' | 'ESCROWED' | 'RELEASED' | 'REFUNDED';

export interface ExpertsTable {
  /** The technician account. */
  account_id: string;
  name: string;
  avatar: string | null;
  bio: string | null;
  /** ISO 3166 alpha-2, upper case. */
  country: string | null;
  /** JSON arrays of text as entered (tags are also in expert_tags, lower case, for the filter). */
  tags: string;
  languages: string;
  /** Integer XOF; null: on quote. */
  price: number | null;
  currency: string;
  /** International number, digits only; the directory shows a ready link. */
  messenger_number: string | null;
  is_active: number;
  is_certified: number;
  is_internal: number;
  tier_level: Tier;
  /** 0 NOVICE … 3 INGENIEUR: orders ties of the directory. */
  tier_rank: number;
  tier_changed_at: string | null;
  is_online: number;
  last_seen_at: string | null;
  /** Holds at least one unresolved urgent mission. */
  is_busy: number;
  /** Mean of the reviews (null: never rated), their count, the bayesian score 0-100. */
  rating: number | null;
  votes: number;
  reputation_score: number;
  missions_closed: number;
  missions_resolved: number;
  activity_status: ActivityStatus;
  /** Last traced mission (claim or close); silence counts from it, or from created_at. */
  last_mission_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ExpertTagsTable {
  expert_id: string;
  tag: string;
}

export interface SupportCategoriesTable {
  code: string;
  label: string;
  required_tier: Tier;
}

export interface SupportMissionsTable {
  id: string;
  /** The client account that posted it. */
  client_id: string;
  subject: string;
  description: string;
  category: string;
  required_tier: Tier;
  required_rank: number;
  is_urgent: number;
  status: MissionStatus;
  payment_status: PaymentStatus;
  /** Integer XOF held for a paid mission; null for a free one. */
  price_amount: number | null;
  currency: string;
  assignee_id: string | null;
  claimed_at: string | null;
  /** Set at closing: 1 resolved, 0 not. */
  resolved: number | null;
  closed_at: string | null;
  created_at: string;
}

export interface SupportReviewsTable {
  id: string;
  mission_id: string;
  expert_id: string;
  client_id: string;
  rating: number;
  comment: string | null;
  created_at: string;
}

export interface SupportNotesTable {
  id: string;
  mission_id: string;
  author_id: string;
  content: string;
  created_at: string;
}

export interface SupportSupervisionsTable {
  id: string;
  mission_id: string;
  supervisor_id: string;
  verdict: 'VALIDE' | 'A_CORRIGER';
  comment: string | null;
  created_at: string;
}

export interface SupportTables {
  experts: ExpertsTable;
  expert_tags: ExpertTagsTable;
  support_categories: SupportCategoriesTable;
  support_missions: SupportMissionsTable;
  support_reviews: SupportReviewsTable;
  support_notes: SupportNotesTable;
  support_supervisions: SupportSupervisionsTable;
}
