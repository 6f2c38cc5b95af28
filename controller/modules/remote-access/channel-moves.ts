// Moves a channel along its state machine (channel-states.ts), one allowed step at a time, each
// step a conditional update on the state it leaves, so two writers never skip or repeat a step.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import { canMove, pathTo } from './channel-states.js';
import * as q from './queries.js';
import type { ChannelState, RemoteAccessChannelsTable } from './tables.js';

/** Walks the channel to `to` one allowed step at a time (a probe may prove several at once). */
export async function walkChannel(
  db: Db,
  clock: Clock,
  c: RemoteAccessChannelsTable,
  to: ChannelState,
  extra: Parameters<typeof q.moveChannel>[5] = {},
): Promise<void> {
  const fresh = (await q.findChannel(db, c.client_id, c.allocation_id, c.id))!;
  if (fresh.state === to) return;
  const steps = canMove(fresh.state, to) ? [to] : pathTo(fresh.state, to);
  if (!steps)
    throw new AppError('CHANNEL_TRANSITION_REFUSED', `A channel cannot move from ${fresh.state} to ${to}`);
  let from = fresh.state;
  const now = iso(clock.now());
  for (const step of steps) {
    await q.moveChannel(db, c.id, from, step, now, step === to ? extra : {});
    from = step;
  }
}
