// What clients see of a device. The address the agent dials (the router's side of the forward) is
// in no field: the app opens a device through `access_path` or a signed link, nothing else.
import type { AllocationView } from '../allocations/index.js';
import type { EquipmentDevicesTable } from './tables.js';
import type { OwnerCheck } from './verify-rules.js';

export const EQUIPMENT_BASE = '/api/v1/clients/topology';

export interface DeviceView {
  id: string;
  name: string;
  type: string;
  lan_ip: string;
  mac_address: string | null;
  vendor: string | null;
  vendor_logo: string;
  protocol: 'http' | 'https';
  port: number;
  status: EquipmentDevicesTable['status'];
  pending_reason: string | null;
  online: boolean | null;
  online_changed_at: string | null;
  monitored: boolean;
  router_serial: string;
  allocation_id: string;
  access_path: string;
  access_session_path: string;
  access_endpoint: AccessEndpoint;
  created_at: string;
}

export interface AccessEndpoint {
  dstnat_port: number;
  nat_managed_by: EquipmentDevicesTable['nat_managed_by'];
  proxy_path: string;
}

const flag = (v: number | null): boolean | null => (v === null ? null : v === 1);

export const accessPath = (id: string) => `${EQUIPMENT_BASE}/access/${id}`;

export function deviceView(row: EquipmentDevicesTable): DeviceView {
  return {
    id: row.id,
    name: row.name,
    type: row.device_type,
    lan_ip: row.lan_ip,
    mac_address: row.mac_address,
    vendor: row.vendor,
    vendor_logo: row.vendor_logo,
    protocol: row.service_protocol,
    port: row.service_port,
    status: row.status,
    pending_reason: row.pending_reason,
    // null means not monitored, never offline
    online: row.monitored === 1 ? flag(row.online) : null,
    online_changed_at: row.online_changed_at,
    monitored: row.monitored === 1,
    router_serial: row.router_serial,
    allocation_id: row.allocation_id,
    access_path: accessPath(row.id),
    access_session_path: `${EQUIPMENT_BASE}/devices/${row.id}/access-session`,
    access_endpoint: {
      dstnat_port: row.dstnat_port,
      nat_managed_by: row.nat_managed_by,
      proxy_path: accessPath(row.id),
    },
    created_at: row.created_at,
  };
}

/** The link to the device's router as the list shows it. */
export function vpnHealth(allocation: AllocationView | undefined) {
  return {
    link_state: allocation?.link_state ?? 'DISCONNECTED',
    last_seen_at: allocation?.last_seen_at ?? null,
    reachable: allocation?.link_state === 'CONNECTED',
  };
}

/**
 * `anchored`: the device's router still answers on the slot it was declared on;
 * `needs_revalidation`: the router changed owner or slot (now, or at a verification).
 */
export function hardwareView(row: EquipmentDevicesTable, owner: OwnerCheck) {
  const needs = row.needs_revalidation === 1 || owner !== 'OK';
  return {
    anchored: owner === 'OK' && !needs,
    needs_revalidation: needs,
    reason: owner !== 'OK' ? owner : row.hardware_reason,
  };
}
