import type { Kysely } from 'kysely';

// The daily QoE report, one per client and date.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('qoe_reports')
    .addColumn('client_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('pushed', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('qoe_reports_pk', ['client_id', 'date'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('qoe_reports').execute();
}
