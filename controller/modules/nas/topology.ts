// GET /topology: the client's ACTIVE NAS as one PRIMARY and its MEMBERs, with the anomalies a
// manager should see (a warning per router that is not operational, per pending enrolment).
import type { AllocationView } from '../allocations/index.js';
import { nasView, type NasView } from './nas-view.js';
import type { NasTable } from './tables.js';

export interface TopologyWarning {
  code: string;
  nas_id: string | null;
  message: string;
}

export interface Topology {
  primary: NasView | null;
  members: NasView[];
  warnings: TopologyWarning[];
}

const MESSAGES: Record<string, string> = {
  PRIMARY_TUNNEL_DISCONNECTED: "The PRIMARY router's agent link is down: catalogue writes cannot reach it",
  TUNNEL_DISCONNECTED: "This router's agent link is down: its RADIUS traffic cannot reach the server",
  ROUTER_CHANGED: 'Another router now answers on this slot: enrol it again',
  ALLOCATION_REVOKED: "This router's agent was revoked",
  NAS_PENDING_VERIFICATION: 'Enrolment not verified yet: apply the provisioning script, then verify',
  NO_PRIMARY: 'No PRIMARY router: promote one',
};

const warning = (code: string, nasId: string | null): TopologyWarning => ({
  code,
  nas_id: nasId,
  message: MESSAGES[code] ?? code,
});

export function buildTopology(
  rows: readonly NasTable[],
  allocations: ReadonlyMap<string, AllocationView>,
  sessions: ReadonlyMap<string, number>,
): Topology {
  const warnings: TopologyWarning[] = [];
  const active: NasView[] = [];
  for (const row of rows) {
    if (row.status === 'PENDING') warnings.push(warning('NAS_PENDING_VERIFICATION', row.id));
    if (row.status !== 'ACTIVE') continue;
    active.push(nasView(row, allocations.get(row.allocation_id), sessions.get(row.id) ?? 0));
  }
  const primary = active.find((n) => n.role === 'PRIMARY') ?? null;
  const members = active.filter((n) => n !== primary);
  if (active.length > 0 && !primary) warnings.push(warning('NO_PRIMARY', null));
  for (const entry of active) {
    if (entry.eligibility.eligible) continue;
    const code =
      entry === primary && entry.eligibility.code === 'TUNNEL_DISCONNECTED'
        ? 'PRIMARY_TUNNEL_DISCONNECTED'
        : entry.eligibility.code;
    warnings.push(warning(code, entry.id));
  }
  return { primary, members, warnings };
}
