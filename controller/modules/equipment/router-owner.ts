// Which router a serial names for a client, and whether a device's router is still the client's on
// the slot it was declared on. The client's own allocations are the only ones looked at, so
// another tenant's serial is as unknown as one never seen (404 ROUTER_NOT_OWNED either way).
import { AppError } from '../../core/app-error.js';
import type { AllocationsService, AllocationView } from '../allocations/index.js';
import type { OwnerCheck } from './verify-rules.js';

/** What the NAS registry says of a client's routers (its topology's entries). */
export interface RegistryEntry {
  allocation_id: string;
  router_serial: string;
}

export interface RegistryReader {
  topology(clientId: string): Promise<{ primary: RegistryEntry | null; members: RegistryEntry[] }>;
}

export const sameSerial = (a: string | null | undefined, b: string | null | undefined): boolean =>
  !!a && !!b && a.trim().toUpperCase() === b.trim().toUpperCase();

const notOwned = (serial: string, why: string) =>
  new AppError('ROUTER_NOT_OWNED', 'No router with this serial is linked to your account', {
    details: { router_serial: serial, reason: why },
  });

export class RouterOwners {
  constructor(
    private readonly allocations: Pick<AllocationsService, 'list'>,
    private readonly registry: RegistryReader,
  ) {}

  /**
   * The client's live allocation whose agent reported this serial (a connected one first, then the
   * freshest facts), refused when the NAS registry ties the serial to another slot or the slot to
   * another serial.
   * @throws AppError ROUTER_NOT_OWNED
   */
  async allocationFor(clientId: string, serial: string): Promise<AllocationView> {
    const candidates = (await this.allocations.list(clientId)).filter(
      (a) => a.status !== 'REVOKED' && sameSerial(a.router.serial, serial),
    );
    const rank = (a: AllocationView) => (a.link_state === 'CONNECTED' ? 1 : 0);
    candidates.sort(
      (a, b) => rank(b) - rank(a) || (b.router.updated_at ?? '').localeCompare(a.router.updated_at ?? ''),
    );
    const allocation = candidates[0];
    if (!allocation) throw notOwned(serial, 'UNKNOWN_SERIAL');
    const topology = await this.registry.topology(clientId);
    const entries = [...(topology.primary ? [topology.primary] : []), ...topology.members];
    const diverging = entries.some(
      (e) =>
        (sameSerial(e.router_serial, serial) && e.allocation_id !== allocation.id) ||
        (e.allocation_id === allocation.id && !sameSerial(e.router_serial, serial)),
    );
    if (diverging) throw notOwned(serial, 'REGISTRY_MISMATCH');
    return allocation;
  }

  async check(
    clientId: string,
    device: { allocation_id: string; router_serial: string },
  ): Promise<{ owner: OwnerCheck; allocation: AllocationView | undefined }> {
    return ownerCheck(await this.allocations.list(clientId), device);
  }
}

/**
 * OK while the device's slot is live and still reports its router; ROUTER_REALLOCATED when the
 * router now answers on another slot of the client; ROUTER_CHANGED_OWNER when no slot of the
 * client holds it any more (revoked, or another router on the slot).
 */
export function ownerCheck(
  all: readonly AllocationView[],
  device: { allocation_id: string; router_serial: string },
): { owner: OwnerCheck; allocation: AllocationView | undefined } {
  const slot = all.find((a) => a.id === device.allocation_id);
  if (
    slot &&
    slot.status !== 'REVOKED' &&
    (slot.router.serial === null || sameSerial(slot.router.serial, device.router_serial))
  ) {
    return { owner: 'OK', allocation: slot };
  }
  const moved = all.some(
    (a) =>
      a.id !== device.allocation_id &&
      a.status !== 'REVOKED' &&
      sameSerial(a.router.serial, device.router_serial),
  );
  return { owner: moved ? 'ROUTER_REALLOCATED' : 'ROUTER_CHANGED_OWNER', allocation: slot };
}
