// The monitoring round and the resumption of devices left PENDING while their router was out of
// reach. One round reads each watched router once (`equipment.status` for all its devices); a
// router whose link is down is skipped: an outage of the link sends nothing and changes nothing.
import { iso } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { AllocationView } from '../allocations/index.js';
import type { EquipmentDeps } from './deps.js';
import type { DevicePins } from './device-pins.js';
import { applyProbe, type MonitorEvent } from './monitor-rules.js';
import * as q from './queries.js';
import { ownerCheck } from './router-owner.js';
import type { EquipmentDevicesTable } from './tables.js';

const TEXTS: Record<
  MonitorEvent['kind'],
  (name: string, e: MonitorEvent) => { title: string; body: string }
> = {
  down: (name) => ({ title: 'Équipement hors ligne', body: `${name} ne répond plus.` }),
  still_down: (name, e) => ({
    title: 'Équipement toujours hors ligne',
    body: `${name} ne répond plus depuis ${e.kind === 'still_down' && e.label === '2h' ? '2 heures' : '15 minutes'}.`,
  }),
  back: (name, e) => ({
    title: 'Équipement de retour en ligne',
    body: `${name} répond de nouveau (interruption de ${Math.max(1, Math.round((e.kind === 'back' ? e.down_seconds : 0) / 60))} min).`,
  }),
};

export class DeviceWatch {
  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly deps: EquipmentDeps,
    private readonly pins: DevicePins,
  ) {}

  /** One round over every watched or resumable device, router by router. */
  async round(now: Date): Promise<{ routers: number; pushes: number; resumed: number }> {
    const rows = await q.devicesToWatch(this.db);
    const byRouter = new Map<string, EquipmentDevicesTable[]>();
    for (const row of rows)
      byRouter.set(row.allocation_id, [...(byRouter.get(row.allocation_id) ?? []), row]);
    const allocationsOf = new Map<string, AllocationView[]>();
    let pushes = 0;
    let resumed = 0;
    let routers = 0;
    for (const devices of byRouter.values()) {
      const clientId = devices[0]!.client_id;
      if (!allocationsOf.has(clientId))
        allocationsOf.set(clientId, await this.deps.allocations.list(clientId));
      const all = allocationsOf.get(clientId)!;
      const { owner, allocation } = ownerCheck(all, devices[0]!);
      if (owner !== 'OK' || allocation?.link_state !== 'CONNECTED') continue;
      routers++;
      try {
        const r = await this.#router(devices, allocation, all, now);
        pushes += r.pushes;
        resumed += r.resumed;
      } catch (err) {
        this.logger.warn(
          { err: String(err), allocationId: allocation.id },
          'equipment round failed for a router',
        );
      }
    }
    return { routers, pushes, resumed };
  }

  /** Places what waited for this router's link (the hub says when it comes up). */
  async resume(clientId: string, allocationId: string, known?: readonly AllocationView[]): Promise<number> {
    const rows = (await q.listForAllocation(this.db, clientId, allocationId)).filter(
      (r) =>
        r.status === 'PENDING' && r.pending_reason === 'ROUTER_UNREACHABLE' && r.needs_revalidation === 0,
    );
    // Every link-up calls this: the client's whole router list is read only when a device waits.
    if (rows.length === 0) return 0;
    const all = known ?? (await this.deps.allocations.list(clientId));
    let resumed = 0;
    for (const row of rows) {
      const { owner, allocation } = ownerCheck(all, row);
      if (owner !== 'OK' || !allocation) continue;
      if ((await this.pins.pin(row, allocation, 'resumed')).status === 'ACTIVE') resumed++;
    }
    return resumed;
  }

  async #router(
    devices: EquipmentDevicesTable[],
    allocation: AllocationView,
    all: readonly AllocationView[],
    now: Date,
  ) {
    const resumed = await this.resume(devices[0]!.client_id, allocation.id, all);
    const watched = devices.filter((d) => d.status === 'ACTIVE' && d.monitored === 1);
    if (watched.length === 0) return { pushes: 0, resumed };
    const states = await this.pins.read(watched);
    if (!states) return { pushes: 0, resumed };
    let pushes = 0;
    for (const row of watched) {
      const probe = states.get(row.id)?.probe;
      if (!probe || probe.disabled) continue;
      const outcome = applyProbe(
        {
          online: row.online === null ? null : row.online === 1,
          online_changed_at: row.online_changed_at,
          down_since: row.down_since,
          down_step: row.down_step,
        },
        probe.status,
        now,
      );
      if (outcome.next === undefined || outcome.next === null) continue;
      const n = outcome.next;
      if (n.online !== (row.online === null ? null : row.online === 1) || n.down_step !== row.down_step) {
        await q.updateDevice(this.db, row.client_id, row.id, {
          online: n.online === null ? null : n.online ? 1 : 0,
          online_changed_at: n.online_changed_at,
          down_since: n.down_since,
          down_step: n.down_step,
          updated_at: iso(now),
        });
      }
      if (outcome.event && outcome.key) {
        const text = TEXTS[outcome.event.kind](row.name, outcome.event);
        const sent = await this.deps.notifications.notify({
          recipientId: row.client_id,
          type: 'EQUIPMENT_MONITOR',
          title: text.title,
          body: text.body,
          data: {
            device_id: row.id,
            state: outcome.event.kind === 'back' ? 'UP' : 'DOWN',
            step: outcome.event.kind === 'still_down' ? outcome.event.label : outcome.event.kind,
            ...(outcome.event.kind === 'back' ? { down_seconds: outcome.event.down_seconds } : {}),
          },
          dedupKey: `${row.id}:${outcome.key}`,
          channels: ['push', 'in_app'],
        });
        if (sent.created) pushes++;
      }
    }
    return { pushes, resumed };
  }
}
