// What clients see of a NAS: its topology entry (docs/api/nas.md) plus shortname, allocation, serial
// and model (the client's equipment screens read them), its eligibility, and the provisioning block.
// Never the secret.
import type { AllocationView } from '../allocations/index.js';
import type { NasRole, NasStatus, NasTable } from './tables.js';

export type TunnelStatus = 'CONNECTED' | 'DISCONNECTED';

/** Why a NAS is not an operational router; ELIGIBLE when it is. */
export type EligibilityCode =
  'ELIGIBLE' | 'NOT_VERIFIED' | 'ALLOCATION_REVOKED' | 'ROUTER_CHANGED' | 'TUNNEL_DISCONNECTED';

export interface NasView {
  id: string;
  nasname: string;
  shortname: string;
  role: NasRole;
  status: NasStatus;
  tunnel_status: TunnelStatus;
  tunnel_last_seen_at: string | null;
  sessions_open: number;
  eligibility: { eligible: boolean; code: EligibilityCode };
  allocation_id: string;
  router_serial: string;
  model: string | null;
  created_at: string;
  activated_at: string | null;
}

export interface ProvisioningBlock {
  /** True until the router is known to carry the provisioning (status ACTIVE). */
  required: boolean;
  endpoint: string;
  verify_endpoint: string;
}

export const NAS_BASE = '/api/v1/radius/nas';

export const provisioningBlock = (nas: Pick<NasTable, 'id' | 'status'>): ProvisioningBlock => ({
  required: nas.status !== 'ACTIVE',
  endpoint: `${NAS_BASE}/${nas.id}/provisioning`,
  verify_endpoint: `${NAS_BASE}/${nas.id}/verify`,
});

export const sameSerial = (a: string | null | undefined, b: string | null | undefined): boolean =>
  !!a && !!b && a.trim().toUpperCase() === b.trim().toUpperCase();

export const tunnelStatus = (allocation: AllocationView | undefined): TunnelStatus =>
  allocation?.link_state === 'CONNECTED' ? 'CONNECTED' : 'DISCONNECTED';

// The deepest cause first: a revoked slot or a swapped router outranks a link that is down.
export function eligibility(nas: NasTable, allocation: AllocationView | undefined): NasView['eligibility'] {
  let code: EligibilityCode = 'ELIGIBLE';
  if (nas.status !== 'ACTIVE') code = 'NOT_VERIFIED';
  else if (!allocation || allocation.status === 'REVOKED') code = 'ALLOCATION_REVOKED';
  else if (allocation.router.serial && !sameSerial(allocation.router.serial, nas.router_serial))
    code = 'ROUTER_CHANGED';
  else if (tunnelStatus(allocation) !== 'CONNECTED') code = 'TUNNEL_DISCONNECTED';
  return { eligible: code === 'ELIGIBLE', code };
}

export function nasView(
  nas: NasTable,
  allocation: AllocationView | undefined,
  sessionsOpen: number,
): NasView {
  return {
    id: nas.id,
    nasname: nas.nasname,
    shortname: nas.shortname,
    role: nas.role,
    status: nas.status,
    tunnel_status: tunnelStatus(allocation),
    tunnel_last_seen_at: allocation?.last_seen_at ?? null,
    sessions_open: sessionsOpen,
    eligibility: eligibility(nas, allocation),
    allocation_id: nas.allocation_id,
    router_serial: nas.router_serial,
    model: allocation?.router.model ?? nas.model,
    created_at: nas.created_at,
    activated_at: nas.activated_at,
  };
}

/** A short name for RADIUS logs and screens: the router's identity, else the slot's label. */
export function shortnameFor(allocation: AllocationView, nasId: string): string {
  const name = (allocation.router.identity ?? allocation.label ?? '').trim();
  return (name || `nas-${nasId.slice(0, 8)}`).slice(0, 64);
}
