// The transport channel's life, as one table: a channel is issued, configured on the router, its
// data plane confirmed from the {vpn_host} end, its management path confirmed through its own
// address, then serves. Any step may fail; a channel is revoked when another replaces it. A
// failed channel may be configured again (a new apply); a revoked one never comes back.
import type { ChannelState } from './tables.js';

export const CHANNEL_TRANSITIONS: Readonly<Record<ChannelState, readonly ChannelState[]>> = {
  ISSUED: ['LOCAL_CONFIGURED', 'FAILED', 'REVOKED'],
  LOCAL_CONFIGURED: ['DATA_PLANE_CONFIRMED', 'FAILED', 'REVOKED'],
  DATA_PLANE_CONFIRMED: ['MANAGEMENT_CONFIRMED', 'FAILED', 'REVOKED'],
  MANAGEMENT_CONFIRMED: ['ACTIVE', 'FAILED', 'REVOKED'],
  ACTIVE: ['FAILED', 'REVOKED'],
  FAILED: ['LOCAL_CONFIGURED', 'REVOKED'],
  REVOKED: [],
};

/** True when a channel in `from` may move to `to` (staying where it is is not a move). */
export function canMove(from: ChannelState, to: ChannelState): boolean {
  return CHANNEL_TRANSITIONS[from].includes(to);
}

/**
 * The moves that take a channel from `from` to `to` one step at a time along the confirmation
 * path (ISSUED … ACTIVE), or undefined when `to` is not ahead of `from` on it. A probe that
 * proves everything at once still records each step, so no step is ever skipped.
 */
export function pathTo(from: ChannelState, to: ChannelState): ChannelState[] | undefined {
  const order: ChannelState[] = [
    'ISSUED',
    'LOCAL_CONFIGURED',
    'DATA_PLANE_CONFIRMED',
    'MANAGEMENT_CONFIRMED',
    'ACTIVE',
  ];
  // A failed channel re-enters the path where a new apply puts it.
  const start = from === 'FAILED' ? 0 : order.indexOf(from);
  const end = order.indexOf(to);
  if (start < 0 || end < 0 || end < start) return undefined;
  if (from === 'FAILED') return end === 0 ? undefined : order.slice(1, end + 1);
  return order.slice(start + 1, end + 1);
}
