import type { RemoteAccessSlotsTable } from './tables.js';

/** A slot row before anything is known of its transport, credentials or rescue relay. */
export function emptySlot(
  clientId: string,
  allocationId: string,
  version: string,
  now: string,
): RemoteAccessSlotsTable {
  return {
    allocation_id: allocationId,
    client_id: clientId,
    routeros_version: version,
    active_channel_id: null,
    active_reason: null,
    credentials_sealed: null,
    credentials_updated_at: null,
    credentials_state: null,
    credentials_fault: null,
    credentials_applied_at: null,
    rescue_state: null,
    rescue_profile_sealed: null,
    rescue_updated_at: null,
    created_at: now,
    updated_at: now,
  };
}
