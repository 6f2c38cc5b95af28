// Verify and repair (docs/api/equipment.md). Verify reads the router and promotes a PENDING device
// whose rule is in place; it demotes an ACTIVE one only on what it read (a rule missing, disabled
// or changed), never because the router could not be read. Repair fixes what a replay of the pin
// can fix (the marked rule, the lease), then verifies again; it never replays a rule towards an
// address the device has left.
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { DevicePins } from './device-pins.js';
import * as q from './queries.js';
import type { RouterOwners } from './router-owner.js';
import type { EquipmentDevicesTable } from './tables.js';
import {
  accessInPlace,
  OWNER_REASONS,
  REPAIRABLE,
  verifyDevice,
  type VerifyReason,
  type VerifyResult,
} from './verify-rules.js';

export interface VerifyAnswer extends VerifyResult {
  status: EquipmentDevicesTable['status'];
}

/** Shown as is by the app: what the owner has to do when nothing can be fixed from here. */
const NOTES: Partial<Record<VerifyReason, string>> = {
  DEVICE_IP_CHANGED:
    "L'équipement a changé d'adresse IP sur le réseau local. Supprimez-le puis ajoutez-le de nouveau depuis un scan : rejouer l'ancienne règle redirigerait vers l'ancienne adresse.",
  DEVICE_NOT_SEEN:
    "Le routeur ne voit pas l'équipement sur le réseau local. Vérifiez qu'il est allumé et branché, puis relancez la vérification.",
  ROUTER_CHANGED_OWNER:
    "Ce routeur n'est plus rattaché à votre compte. L'accès est suspendu jusqu'à une nouvelle confirmation de l'équipement.",
  ROUTER_REALLOCATED:
    "Ce routeur a été réinscrit sur un autre emplacement. L'accès est suspendu : ajoutez de nouveau l'équipement sur ce routeur.",
};

/** Nothing to repair: no reason, and the lease static (a dynamic one is repairable, not a failure). */
const healthy = (v: VerifyResult): boolean => v.reason === null && v.checks.lease_static !== false;

export class DeviceChecks {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly owners: RouterOwners,
    private readonly pins: DevicePins,
  ) {}

  async verify(row: EquipmentDevicesTable): Promise<VerifyAnswer> {
    const { owner, allocation } = await this.owners.check(row.client_id, row);
    let state;
    if (owner === 'OK' && allocation?.link_state === 'CONNECTED')
      state = (await this.pins.read([row]))?.get(row.id);
    const result = verifyDevice(row, owner, state);
    const patch: Partial<EquipmentDevicesTable> = {};
    if (owner !== 'OK') {
      patch.needs_revalidation = 1;
      patch.hardware_reason = owner;
    } else if (state !== undefined) {
      patch.lease_static = result.checks.lease_static === null ? null : result.checks.lease_static ? 1 : 0;
      if (accessInPlace(result)) {
        if (row.status === 'PENDING') Object.assign(patch, { status: 'ACTIVE', pending_reason: null });
      } else if (result.reason !== null && REPAIRABLE.has(result.reason)) {
        Object.assign(patch, { status: 'PENDING', pending_reason: result.reason });
      }
    }
    const updated = { ...row, ...patch };
    if (Object.keys(patch).length > 0) {
      await q.updateDevice(this.db, row.client_id, row.id, { ...patch, updated_at: iso(this.clock.now()) });
    }
    if (updated.status === 'ACTIVE' && row.status !== 'ACTIVE') await this.pins.notifyAdded(updated);
    return { ...result, status: updated.status };
  }

  async repair(row: EquipmentDevicesTable) {
    const before = await this.verify(row);
    const reasonBefore = before.reason;
    if (healthy(before)) {
      return { already_healthy: true, status: before.status, verify: before };
    }
    if (reasonBefore === 'ROUTER_UNREACHABLE') {
      // conclude nothing and touch nothing
      return {
        repaired: false,
        reason_before: reasonBefore,
        reason_after: reasonBefore,
        status: before.status,
        verify: before,
      };
    }
    if (reasonBefore !== null && (OWNER_REASONS.has(reasonBefore) || !REPAIRABLE.has(reasonBefore))) {
      return {
        needs_human: true,
        note: NOTES[reasonBefore] ?? '',
        reason_before: reasonBefore,
        status: before.status,
        verify: before,
      };
    }
    const current = (await q.findDevice(this.db, row.client_id, row.id)) ?? row;
    await this.pins.runPin(current);
    const after = await this.verify(current);
    return {
      repaired: healthy(after),
      reason_before: reasonBefore,
      reason_after: after.reason,
      status: after.status,
      verify: after,
    };
  }
}
