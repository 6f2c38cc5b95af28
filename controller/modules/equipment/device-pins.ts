// The router side of a device, through its agent: placing (`equipment.pin`), removing and reading.
// Rows are written after the command ends, never inside a transaction around it.
import type { CommandOutput } from '../../../protocol/index.js';
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { AllocationView } from '../allocations/index.js';
import type { EquipmentDeps, EquipmentOptions } from './deps.js';
import { PROBE_INTERVAL_SECONDS } from './nat-plan.js';
import * as q from './queries.js';
import type { EquipmentDevicesTable } from './tables.js';
import type { DeviceState } from './verify-rules.js';

const STATUS_BATCH = 200;

export type PinOutcome =
  { kind: 'done'; output: CommandOutput<'equipment.pin'> } | { kind: 'refused' } | { kind: 'timeout' };

export class DevicePins {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly deps: EquipmentDeps,
    private readonly options: EquipmentOptions,
  ) {}

  #target(row: EquipmentDevicesTable) {
    return { clientId: row.client_id, allocationId: row.allocation_id };
  }

  /** Runs `equipment.pin` for the device as it is stored (its probe as `monitored` says). */
  async runPin(row: EquipmentDevicesTable): Promise<PinOutcome> {
    const outcome = await this.deps.runner.run(
      this.#target(row),
      'equipment.pin',
      {
        device_id: row.id,
        lan_ip: row.lan_ip,
        mac: row.mac_address,
        service_port: row.service_port,
        dstnat_port: row.dstnat_port,
        pin_lease: true,
        agent_only: true,
        probe_interval_seconds: row.monitored === 1 ? PROBE_INTERVAL_SECONDS : null,
      },
      this.options.commandWaitMs,
    );
    if (outcome.kind === 'done') return { kind: 'done', output: outcome.output };
    return { kind: outcome.kind };
  }

  /**
   * Places the device's access on a reachable router. Done: ACTIVE, managed by the backend, and
   * EQUIPMENT_ADDED once per device. Else it stays PENDING with why (`monitor`: unchanged).
   */
  async pin(
    row: EquipmentDevicesTable,
    _allocation: AllocationView,
    why: 'created' | 'resumed' | 'monitor',
  ): Promise<EquipmentDevicesTable> {
    const outcome = await this.runPin(row);
    const now = iso(this.clock.now());
    let patch: Partial<EquipmentDevicesTable>;
    if (outcome.kind === 'done') {
      patch = {
        status: 'ACTIVE',
        pending_reason: null,
        nat_managed_by: why === 'monitor' ? row.nat_managed_by : 'backend',
        src_address: outcome.output.src_address,
        lease_static: outcome.output.lease_static === null ? null : outcome.output.lease_static ? 1 : 0,
      };
      if (why === 'monitor' && row.status !== 'ACTIVE') patch = { src_address: outcome.output.src_address };
    } else if (why === 'monitor') {
      return row;
    } else {
      patch = { pending_reason: outcome.kind === 'timeout' ? 'ROUTER_UNREACHABLE' : 'ROUTER_COMMAND_FAILED' };
    }
    await q.updateDevice(this.db, row.client_id, row.id, { ...patch, updated_at: now });
    const updated = { ...row, ...patch, updated_at: now };
    if (updated.status === 'ACTIVE' && row.status !== 'ACTIVE') await this.notifyAdded(updated);
    return updated;
  }

  async notifyAdded(row: EquipmentDevicesTable): Promise<void> {
    await this.deps.notifications.notify({
      recipientId: row.client_id,
      type: 'EQUIPMENT_ADDED',
      title: 'Équipement mis en service',
      body: `${row.name} est accessible à distance.`,
      data: { device_id: row.id },
      dedupKey: `${row.id}:added`,
      channels: ['push', 'in_app'],
    });
  }

  /** Removes the marked rule and probe; true when the router confirmed it. */
  async unpin(row: EquipmentDevicesTable): Promise<boolean> {
    const outcome = await this.deps.runner.run(
      this.#target(row),
      'equipment.unpin',
      { device_id: row.id },
      this.options.commandWaitMs,
    );
    return outcome.kind === 'done';
  }

  /** What the router holds for these devices of one router; undefined when it could not be read. */
  async read(rows: readonly EquipmentDevicesTable[]): Promise<Map<string, DeviceState> | undefined> {
    const states = new Map<string, DeviceState>();
    // the catalogue takes 200 devices a command
    for (let at = 0; at < rows.length; at += STATUS_BATCH) {
      const batch = rows.slice(at, at + STATUS_BATCH);
      const outcome = await this.deps.runner.run(
        this.#target(batch[0]!),
        'equipment.status',
        { devices: batch.map((r) => ({ device_id: r.id, lan_ip: r.lan_ip, mac: r.mac_address })) },
        this.options.commandWaitMs,
      );
      if (outcome.kind !== 'done') return undefined;
      for (const d of outcome.output.devices) states.set(d.device_id, d);
    }
    return states;
  }
}
