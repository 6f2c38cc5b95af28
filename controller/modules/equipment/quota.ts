// The Suivi Pro device quota (docs/api/equipment.md): the capabilities block and whether an add
// passes. Rights unreadable give null, and the add passes; while the restriction is not enforced
// the add passes too, and the block still says what would apply.
export interface Capabilities {
  can_add_devices: boolean | null;
  reason: 'SUIVI_PRO_REQUIRED' | 'DEVICE_QUOTA_REACHED' | null;
  enforced: boolean;
  max_devices: number | null;
  devices_used: number;
  devices_remaining: number | null;
}

/** `maxDevices` undefined: rights unreadable; null: no active Suivi Pro plan. */
export function capabilities(
  maxDevices: number | null | undefined,
  used: number,
  enforced: boolean,
): Capabilities {
  if (maxDevices === undefined) {
    return {
      can_add_devices: null,
      reason: null,
      enforced,
      max_devices: null,
      devices_used: used,
      devices_remaining: null,
    };
  }
  if (maxDevices === null) {
    return {
      can_add_devices: false,
      reason: 'SUIVI_PRO_REQUIRED',
      enforced,
      max_devices: null,
      devices_used: used,
      devices_remaining: null,
    };
  }
  const remaining = Math.max(0, maxDevices - used);
  return {
    can_add_devices: remaining > 0,
    reason: remaining > 0 ? null : 'DEVICE_QUOTA_REACHED',
    enforced,
    max_devices: maxDevices,
    devices_used: used,
    devices_remaining: remaining,
  };
}
