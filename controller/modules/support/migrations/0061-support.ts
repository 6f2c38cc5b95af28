import { sql, type Kysely } from 'kysely';

// Category tiers are data: a category not listed here needs NOVICE.
const CATEGORIES = [
  { code: 'BASIC_ROUTER_REPAIR', label: 'Réparation de routeur (base)', required_tier: 'PRO' },
  { code: 'ADVANCED_VPN_CONFIGURATION', label: 'Configuration VPN avancée', required_tier: 'EXPERT' },
  { code: 'FIREWALL_SECURITY_AUDIT', label: 'Audit de sécurité du pare-feu', required_tier: 'INGENIEUR' },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('experts')
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('avatar', 'text')
    .addColumn('bio', 'text')
    .addColumn('country', 'text')
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('languages', 'text', (c) => c.notNull())
    .addColumn('price', 'integer')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('messenger_number', 'text')
    .addColumn('is_active', 'integer', (c) => c.notNull())
    .addColumn('is_certified', 'integer', (c) => c.notNull())
    .addColumn('is_internal', 'integer', (c) => c.notNull())
    .addColumn('tier_level', 'text', (c) => c.notNull())
    .addColumn('tier_rank', 'integer', (c) => c.notNull())
    .addColumn('tier_changed_at', 'text')
    .addColumn('is_online', 'integer', (c) => c.notNull())
    .addColumn('last_seen_at', 'text')
    .addColumn('is_busy', 'integer', (c) => c.notNull())
    .addColumn('rating', 'real')
    .addColumn('votes', 'integer', (c) => c.notNull())
    .addColumn('reputation_score', 'real', (c) => c.notNull())
    .addColumn('missions_closed', 'integer', (c) => c.notNull())
    .addColumn('missions_resolved', 'integer', (c) => c.notNull())
    .addColumn('activity_status', 'text', (c) => c.notNull())
    .addColumn('last_mission_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('experts_directory')
    .on('experts')
    .columns(['is_active', 'is_certified', 'reputation_score', 'tier_rank'])
    .execute();
  await db.schema
    .createTable('expert_tags')
    .addColumn('expert_id', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('expert_tags_pk', ['tag', 'expert_id'])
    .execute();
  await db.schema.createIndex('expert_tags_expert').on('expert_tags').column('expert_id').execute();
  await db.schema
    .createTable('support_categories')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('required_tier', 'text', (c) => c.notNull())
    .execute();
  for (const c of CATEGORIES)
    await sql`insert into support_categories (code, label, required_tier) values (${c.code}, ${c.label}, ${c.required_tier})`.execute(
      db,
    );
  await db.schema
    .createTable('support_missions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('required_tier', 'text', (c) => c.notNull())
    .addColumn('required_rank', 'integer', (c) => c.notNull())
    .addColumn('is_urgent', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payment_status', 'text', (c) => c.notNull())
    .addColumn('price_amount', 'integer')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('assignee_id', 'text')
    .addColumn('claimed_at', 'text')
    .addColumn('resolved', 'integer')
    .addColumn('closed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('support_missions_client')
    .on('support_missions')
    .columns(['client_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('support_missions_assignee')
    .on('support_missions')
    .columns(['assignee_id', 'status'])
    .execute();
  await db.schema
    .createIndex('support_missions_open')
    .on('support_missions')
    .columns(['status', 'created_at'])
    .execute();
  await db.schema
    .createTable('support_reviews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mission_id', 'text', (c) => c.notNull())
    .addColumn('expert_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('rating', 'integer', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('support_reviews_once', ['mission_id', 'expert_id'])
    .execute();
  await db.schema
    .createIndex('support_reviews_expert')
    .on('support_reviews')
    .columns(['expert_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('support_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mission_id', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('support_notes_mission')
    .on('support_notes')
    .columns(['mission_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('support_supervisions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('mission_id', 'text', (c) => c.notNull().unique())
    .addColumn('supervisor_id', 'text', (c) => c.notNull())
    .addColumn('verdict', 'text', (c) => c.notNull())
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('support_supervisions_supervisor')
    .on('support_supervisions')
    .columns(['supervisor_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'support_supervisions',
    'support_notes',
    'support_reviews',
    'support_missions',
    'support_categories',
    'expert_tags',
    'experts',
  ])
    await db.schema.dropTable(t).execute();
}
