// What RADIUS_MIGRATION_WATCH runs (every 3 minutes): an armed migration is confirmed by the
// first real authentication accepted through the router's NAS since it was armed. With
// RADIUS_READY_AUTO_CONFIRM_ENABLED off the authentication is recorded and an administrator confirms.
import { iso } from '../../core/clock.js';
import type { MigrationDeps } from './deps.js';
import * as q from './queries.js';

export async function watchArmed(
  deps: MigrationDeps,
  now: Date,
): Promise<{ seen: number; confirmed: number }> {
  const { db, logger, options } = deps;
  let seen = 0;
  let confirmed = 0;
  for (const m of await q.listByStatut(db, 'ARMEMENT')) {
    if (!m.nas_id || !m.armed_at) continue;
    const first =
      m.first_user !== null && m.first_auth_at !== null
        ? { username: m.first_user, at: m.first_auth_at }
        : await deps.radius.firstAcceptSince(m.client_id, m.nas_id, m.armed_at);
    if (!first) continue;
    seen++;
    if (m.first_user === null) {
      await q.recordFirstAuth(db, m.allocation_id, {
        first_user: first.username,
        first_auth_at: first.at,
        updated_at: iso(now),
      });
    }
    if (!options.autoConfirm()) continue;
    if (await q.confirmArmed(db, m.allocation_id, { confirmed_at: iso(now), updated_at: iso(now) })) {
      confirmed++;
      logger.info(
        { allocationId: m.allocation_id, nasId: m.nas_id, user: first.username },
        'migration confirmed by a first real authentication',
      );
    }
  }
  return { seen, confirmed };
}
