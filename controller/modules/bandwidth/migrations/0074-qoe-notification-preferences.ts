import type { Kysely } from 'kysely';

// The manager's notification preferences (the bandwidth switch, the network-quality switches and
// the quiet hours they share) take the name the product gives them. A rename keeps every row and
// column as it was; the constraints keep the names they were created with.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('bandwidth_preferences').renameTo('qoe_notification_preferences').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('qoe_notification_preferences').renameTo('bandwidth_preferences').execute();
}
