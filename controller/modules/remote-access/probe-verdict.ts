// Whether a management probe allows the previous transport to be retired, as a pure rule. The
// old interface goes only when the candidate is proven on every count; any doubt keeps it.
import type { TransportProtocol } from './tables.js';

export type ProbeState = 'PENDING' | 'CONFIRMED' | 'FAILED';

export interface ProbeFacts {
  reachable: boolean;
  dataPlaneConfirmed: boolean;
  observedTransport: TransportProtocol | null;
  requestedTransport: TransportProtocol;
  state: ProbeState;
  candidateAddress: string;
  /** The previous channel's management address; null when there is no previous channel. */
  previousAddress: string | null;
}

export type RetireRefusal =
  | 'NO_PREVIOUS_CHANNEL'
  | 'NOT_REACHABLE'
  | 'DATA_PLANE_NOT_CONFIRMED'
  | 'OTHER_TRANSPORT_OBSERVED'
  | 'SAME_ADDRESS_AS_PREVIOUS'
  | 'NOT_CONFIRMED';

/** Null when retirement is allowed, else the first reason it is not. */
export function retireRefusal(f: ProbeFacts): RetireRefusal | null {
  if (f.previousAddress === null) return 'NO_PREVIOUS_CHANNEL';
  if (!f.reachable) return 'NOT_REACHABLE';
  // Reachable without a confirmed data plane may be the old path answering: never enough.
  if (!f.dataPlaneConfirmed) return 'DATA_PLANE_NOT_CONFIRMED';
  if (f.observedTransport !== f.requestedTransport) return 'OTHER_TRANSPORT_OBSERVED';
  if (f.candidateAddress === f.previousAddress) return 'SAME_ADDRESS_AS_PREVIOUS';
  if (f.state !== 'CONFIRMED') return 'NOT_CONFIRMED';
  return null;
}

/** The probe's state from what was proven: CONFIRMED needs both proofs, PENDING while waiting. */
export function probeState(p: {
  reachable: boolean;
  dataPlaneConfirmed: boolean;
  timedOut: boolean;
  failed: boolean;
}): ProbeState {
  if (p.reachable && p.dataPlaneConfirmed) return 'CONFIRMED';
  if (p.failed) return 'FAILED';
  return 'PENDING';
}
