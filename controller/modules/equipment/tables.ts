/** ACTIVE: the access rule is on the router; PENDING: recorded, port reserved, rule not confirmed. */
export type DeviceStatus = 'ACTIVE' | 'PENDING';

/** Who places the dst-nat rule: the backend through the agent, or the app on the LAN. */
export type NatManagedBy = 'backend' | 'app';

/** One client device behind a router (an access point, a camera…), reached through its agent. */
export interface EquipmentDevicesTable {
  id: string;
  client_id: string;
  allocation_id: string;
  /** The router's serial when the device was declared: the owner checks compare it. */
  router_serial: string;
  name: string;
  device_type: string;
  lan_ip: string;
  mac_address: string | null;
  vendor: string | null;
  vendor_logo: string;
  service_protocol: 'http' | 'https';
  service_port: number;
  /** Unique per router (`equipment_port_per_router`): two devices never share a forward. */
  dstnat_port: number;
  status: DeviceStatus;
  pending_reason: string | null;
  nat_managed_by: NatManagedBy;
  /** 0/1: a netwatch probe watches the service port. */
  monitored: number;
  /** 0/1, null when not monitored or not read yet. */
  online: number | null;
  online_changed_at: string | null;
  /** When the server first read the device down (the interruption is measured from it). */
  down_since: string | null;
  /** Pushes sent for the current outage: 0 none, 1 down, 2 the 15-minute reminder, 3 the 2-hour one. */
  down_step: number;
  /** 0/1: the router changed owner or slot; no access until reconfirmed. */
  needs_revalidation: number;
  hardware_reason: string | null;
  /** The rule's `src-address` (the agent as the router sees it) at the last pin; null: none known. */
  src_address: string | null;
  /** 0/1: the lease was read static at the last pin or verify. */
  lease_static: number | null;
  created_at: string;
  updated_at: string;
}

export interface EquipmentTables {
  equipment_devices: EquipmentDevicesTable;
}
