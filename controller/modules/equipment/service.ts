// The client equipment API (docs/api/equipment.md): scan, declare, list, delete, monitor and the
// quota. Every router action is an agent command; no transaction is open while one runs (rows are
// written before and after it).
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { lockName } from '../../db/name-lock.js';
import type { Logger } from '../../logger.js';
import type { AllocationView } from '../allocations/index.js';
import { deviceView, hardwareView, vpnHealth, type DeviceView } from './device-view.js';
import type { EquipmentDeps, EquipmentOptions } from './deps.js';
import { DevicePins } from './device-pins.js';
import { natRulePlan, routerSyntax, type NatRulePlan } from './nat-plan.js';
import * as q from './queries.js';
import { capabilities, type Capabilities } from './quota.js';
import { ownerCheck, RouterOwners } from './router-owner.js';
import { buildScan, type ScanAnswer } from './scan-filter.js';
import type { DeviceFields } from './schemas.js';
import type { EquipmentDevicesTable } from './tables.js';
import { vendorOf } from './vendor.js';

const SCAN_TIMEOUT_MS = 20_000;
const PORT_ATTEMPTS = 8;

export interface CreatedDevice extends DeviceView {
  nat_rule: NatRulePlan;
}

export class EquipmentService {
  readonly owners: RouterOwners;
  readonly pins: DevicePins;
  readonly #closers: (() => void)[] = [];
  readonly #relayRow: q.RelayStatement;

  constructor(
    private readonly db: Db,
    private readonly caps: DialectCapabilities,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly deps: EquipmentDeps,
    private readonly options: EquipmentOptions,
  ) {
    this.owners = new RouterOwners(deps.allocations, deps.nas);
    this.pins = new DevicePins(db, clock, deps, options);
    this.#relayRow = q.relayRowStatement(db);
  }

  /** Registers what the module holds open (the web access ports), closed by `close`. */
  onClose(closer: () => void): void {
    this.#closers.push(closer);
  }

  /** Controller shutdown: the ports the module opened close with their connections. */
  close(): void {
    for (const closer of this.#closers.splice(0)) closer();
  }

  async scan(clientId: string, serial: string, all: boolean): Promise<ScanAnswer> {
    const allocation = await this.owners.allocationFor(clientId, serial);
    const lan = await this.deps.runner.runForRequest(
      { clientId, allocationId: allocation.id },
      'lan.scan',
      {},
      SCAN_TIMEOUT_MS,
    );
    const devices = await q.listForAllocation(this.db, clientId, allocation.id);
    return buildScan(
      lan,
      {
        lanIps: new Set(devices.map((d) => d.lan_ip)),
        macs: new Set(devices.flatMap((d) => (d.mac_address ? [d.mac_address.toUpperCase()] : []))),
      },
      { all },
    );
  }

  /** The Suivi Pro block; rights that cannot be read give `can_add_devices` null. */
  async capabilities(clientId: string): Promise<Capabilities> {
    const used = await q.countDevices(this.db, clientId);
    let max: number | null | undefined;
    try {
      max = await this.#maxDevices(clientId);
    } catch (err) {
      this.logger.warn({ err: String(err), clientId }, 'Suivi Pro rights unreadable');
      max = undefined;
    }
    return capabilities(max, used, this.options.quotaEnforced);
  }

  async #maxDevices(clientId: string): Promise<number | null> {
    const now = iso(this.clock.now());
    const licences = (await this.deps.licences.listForClient(clientId)).filter(
      (l) =>
        l.product_code === 'SUIVI_PRO' && l.status === 'ACTIVE' && l.starts_at <= now && l.expires_at > now,
    );
    if (licences.length === 0) return null;
    const plans = new Map((await this.deps.licences.listPlans()).map((p) => [p.code, p.max_devices]));
    return Math.max(...licences.map((l) => plans.get(l.plan_code) ?? 0));
  }

  /**
   * The device cap an add must respect: null when nothing is enforced (the restriction is off, or
   * the rights cannot be read: the add passes); an enforced client without a plan is refused here.
   */
  async #enforcedCap(clientId: string): Promise<number | null> {
    if (!this.options.quotaEnforced) return null;
    let max: number | null;
    try {
      max = await this.#maxDevices(clientId);
    } catch (err) {
      this.logger.warn({ err: String(err), clientId }, 'Suivi Pro rights unreadable');
      return null;
    }
    if (max === null) {
      throw new AppError('SUIVI_PRO_REQUIRED', 'A Suivi Pro subscription is required to add devices');
    }
    return max;
  }

  async create(
    clientId: string,
    body: DeviceFields & { router_serial: string; pushNat?: boolean | undefined },
  ) {
    const allocation = await this.owners.allocationFor(clientId, body.router_serial);
    const pushNat = body.pushNat !== false;
    const row = this.#newRow(clientId, allocation, body, pushNat);
    await this.#insertAll(clientId, [row]);
    return this.#place(row, allocation, pushNat);
  }

  /** Declares several devices of one router after a scan; those already declared are skipped. */
  async sync(
    clientId: string,
    body: { router_serial: string; devices: DeviceFields[]; pushNat?: boolean | undefined },
  ) {
    const allocation = await this.owners.allocationFor(clientId, body.router_serial);
    const pushNat = body.pushNat !== false;
    const existing = await q.listForAllocation(this.db, clientId, allocation.id);
    const taken = new Set(existing.map((d) => d.lan_ip));
    const fresh: EquipmentDevicesTable[] = [];
    const skipped: { lan_ip: string; reason: 'ALREADY_ADDED' }[] = [];
    for (const d of body.devices) {
      if (taken.has(d.lan_ip)) skipped.push({ lan_ip: d.lan_ip, reason: 'ALREADY_ADDED' });
      else {
        taken.add(d.lan_ip);
        fresh.push(this.#newRow(clientId, allocation, d, pushNat));
      }
    }
    if (fresh.length > 0) await this.#insertAll(clientId, fresh);
    const created: CreatedDevice[] = [];
    for (const row of fresh) created.push(await this.#place(row, allocation, pushNat));
    return { created, skipped };
  }

  #newRow(
    clientId: string,
    allocation: AllocationView,
    fields: DeviceFields,
    pushNat: boolean,
  ): EquipmentDevicesTable {
    const now = iso(this.clock.now());
    const mac = fields.mac_address ? fields.mac_address.replaceAll('-', ':').toUpperCase() : null;
    const vendor = vendorOf(mac);
    return {
      id: newId(),
      client_id: clientId,
      allocation_id: allocation.id,
      router_serial: allocation.router.serial ?? '',
      name: fields.name,
      device_type: fields.device_type,
      lan_ip: fields.lan_ip,
      mac_address: mac,
      vendor: vendor.vendor,
      vendor_logo: vendor.vendor_logo,
      service_protocol: fields.service_protocol,
      service_port: fields.service_port,
      dstnat_port: 0,
      status: 'PENDING',
      pending_reason: !pushNat ? 'PUSH_NAT_DISABLED' : 'ROUTER_UNREACHABLE',
      nat_managed_by: 'app',
      monitored: 1,
      online: null,
      online_changed_at: null,
      down_since: null,
      down_step: 0,
      needs_revalidation: 0,
      hardware_reason: null,
      src_address: null,
      lease_static: null,
      created_at: now,
      updated_at: now,
    };
  }

  /** A stored device placed on its router when the link is up and the client lets us. */
  async #place(row: EquipmentDevicesTable, allocation: AllocationView, pushNat: boolean) {
    const linkUp = allocation.link_state === 'CONNECTED';
    const placed = pushNat && linkUp ? await this.pins.pin(row, allocation, 'created') : row;
    return { ...deviceView(placed), nat_rule: this.plan(placed, allocation) };
  }

  /**
   * Stores new devices together, each on the lowest free dst-nat port of its router, once the
   * enforced cap allows them all. The count and the inserts run under the client's lock, so two
   * concurrent adds at the cap never both pass; a port taken meanwhile by a writer outside that
   * lock (a unique index refusal) makes the whole attempt run again.
   */
  async #insertAll(clientId: string, rows: EquipmentDevicesTable[]): Promise<void> {
    const cap = await this.#enforcedCap(clientId);
    const [first, last] = this.options.ports;
    for (let attempt = 1; ; attempt++) {
      try {
        const ports = await this.db.transaction().execute(async (trx) => {
          await lockName(trx, this.caps, `equipment-devices:${clientId}`);
          if (cap !== null) {
            const used = await q.countDevices(trx, clientId);
            if (used + rows.length > cap) {
              throw new AppError('DEVICE_QUOTA_REACHED', 'The device cap of your Suivi Pro plan is reached', {
                details: { max_devices: cap, devices_used: used },
                extra: { code: 'DEVICE_QUOTA_REACHED' },
              });
            }
          }
          const chosen: number[] = [];
          for (const row of rows) {
            // Read again for each row: the rows inserted just before in this transaction count.
            const used = await q.usedPorts(trx, row.allocation_id);
            let port = first;
            while (port <= last && used.has(port)) port++;
            if (port > last) {
              throw new AppError('EQUIPMENT_PORTS_EXHAUSTED', 'Every access port of this router is reserved');
            }
            await q.insertDevice(trx, { ...row, dstnat_port: port });
            chosen.push(port);
          }
          return chosen;
        });
        rows.forEach((row, i) => (row.dstnat_port = ports[i]!));
        return;
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= PORT_ATTEMPTS) throw err;
      }
    }
  }

  plan(row: EquipmentDevicesTable, allocation: AllocationView | undefined): NatRulePlan {
    return natRulePlan(
      { ...row, monitored: row.monitored === 1 },
      routerSyntax(allocation?.router.routeros_version),
      row.src_address,
    );
  }

  async device(clientId: string, id: string): Promise<EquipmentDevicesTable> {
    const row = await q.findDevice(this.db, clientId, id);
    if (!row) throw new AppError('DEVICE_NOT_FOUND', 'No device with this id');
    return row;
  }

  /**
   * What the relay needs to reach a device, checked on every call: the tenant's device, ACTIVE,
   * its router still the client's on its slot, and that slot's link up.
   */
  async relayTarget(clientId: string, id: string) {
    const row = (await this.#relayRow.run(this.db, [clientId, id])).rows[0];
    if (!row) throw new AppError('DEVICE_NOT_FOUND', 'No device with this id');
    if (row.status !== 'ACTIVE') {
      throw new AppError('DEVICE_NOT_ACTIVE', 'The access to this device is not in place on its router');
    }
    // The device's own slot decides whether it may be reached (ownerCheck finds it by id in the
    // client's list and says OK on it alone); the whole list is read only to name a refusal.
    const slot = await this.deps.allocations.get(clientId, row.allocation_id).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'ALLOCATION_NOT_FOUND') return undefined;
      throw err;
    });
    const checked = slot ? ownerCheck([slot], row) : undefined;
    const { owner, allocation } =
      checked?.owner === 'OK' ? checked : ownerCheck(await this.deps.allocations.list(clientId), row);
    if (owner !== 'OK' || row.needs_revalidation === 1) {
      throw new AppError('DEVICE_NOT_ACTIVE', 'This device must be confirmed again before it can be opened', {
        details: { reason: owner !== 'OK' ? owner : row.hardware_reason },
      });
    }
    if (allocation?.link_state !== 'CONNECTED') {
      throw new AppError(
        'EQUIPMENT_LINK_DOWN',
        "The router's agent link is down; the device cannot be reached now",
      );
    }
    return {
      allocationId: row.allocation_id,
      dstnatPort: row.dstnat_port,
      lanIp: row.lan_ip,
      servicePort: row.service_port,
      protocol: row.service_protocol,
    };
  }

  async list(clientId: string) {
    const rows = await q.listDevices(this.db, clientId);
    const allocations = await this.deps.allocations.list(clientId);
    return {
      data: rows.map((row) => {
        const { owner, allocation } = ownerCheck(allocations, row);
        return { ...deviceView(row), vpn_health: vpnHealth(allocation), hardware: hardwareView(row, owner) };
      }),
      capabilities: await this.capabilities(clientId),
    };
  }

  /** Removes the device; its rule and probe too when the router can be reached now. */
  async remove(clientId: string, id: string) {
    const row = await this.device(clientId, id);
    const { owner, allocation } = await this.owners.check(clientId, row);
    let removedOnRouter = false;
    if (owner === 'OK' && allocation?.link_state === 'CONNECTED') {
      removedOnRouter = await this.pins.unpin(row);
    }
    await q.deleteDevice(this.db, clientId, id);
    return {
      id,
      deleted: true,
      removed_on_router: removedOnRouter,
      remove_command: this.plan(row, allocation).remove_command,
    };
  }

  /** Turns the probe on or off (on the router too when it can be reached now). */
  async monitor(clientId: string, id: string, enabled: boolean): Promise<DeviceView> {
    const row = await this.device(clientId, id);
    const patch = enabled
      ? { monitored: 1 }
      : { monitored: 0, online: null, online_changed_at: null, down_since: null, down_step: 0 };
    await q.updateDevice(this.db, clientId, id, { ...patch, updated_at: iso(this.clock.now()) });
    let updated = { ...row, ...patch };
    const { owner, allocation } = await this.owners.check(clientId, row);
    if (owner === 'OK' && row.status === 'ACTIVE' && allocation?.link_state === 'CONNECTED') {
      updated = await this.pins.pin(updated, allocation, 'monitor');
    }
    return deviceView(updated);
  }
}
