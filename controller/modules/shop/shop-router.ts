// Which router the shop delivers from: the PRIMARY RADIUS router's allocation when the tenant has
// one whose agent enrolled, else its enrolled allocations, a connected one first, oldest first.
// Pure: the allocations and the topology come in.
import type { AllocationView } from '../allocations/index.js';

export interface ShopRouter {
  allocation_id: string;
  serial: string | null;
  tunnel_status: 'CONNECTED' | 'DISCONNECTED';
  tunnel_last_seen_at: string | null;
}

export function pickShopRouter(
  allocations: readonly AllocationView[],
  primaryAllocationId: string | null,
): ShopRouter | null {
  const enrolled = allocations.filter((a) => a.status === 'ENROLLED');
  const primary = enrolled.find((a) => a.id === primaryAllocationId);
  const chosen =
    primary ??
    [...enrolled].sort(
      (a, b) =>
        Number(b.link_state === 'CONNECTED') - Number(a.link_state === 'CONNECTED') ||
        a.created_at.localeCompare(b.created_at),
    )[0];
  if (!chosen) return null;
  return {
    allocation_id: chosen.id,
    serial: chosen.router.serial,
    tunnel_status: chosen.link_state === 'CONNECTED' ? 'CONNECTED' : 'DISCONNECTED',
    tunnel_last_seen_at: chosen.last_seen_at,
  };
}
