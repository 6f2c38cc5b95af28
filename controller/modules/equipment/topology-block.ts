// What the client equipment adds to the RADIUS topology answer (GET /api/v1/radius/topology),
// through the NAS module's extension point: the PRIMARY's devices and web access, and the root's
// capabilities. The web access ports are opened on the client's request only (web-access.ts): the
// topology shows the latest grant's, null until one is open.
import type { Topology } from '../nas/index.js';
import { deviceView, hardwareView } from './device-view.js';
import * as q from './queries.js';
import { ownerCheck } from './router-owner.js';
import type { EquipmentService } from './service.js';
import type { Db } from '../../db/database.js';
import type { EquipmentDeps } from './deps.js';
import type { WebAccessService } from './web-access.js';

export function topologyBlock(
  db: Db,
  deps: EquipmentDeps,
  equipment: EquipmentService,
  webAccess: WebAccessService,
) {
  return async (clientId: string, topology: Topology) => {
    const capabilities = await equipment.capabilities(clientId);
    const primary = topology.primary;
    if (!primary) return { root: { capabilities } };
    const allocations = await deps.allocations.list(clientId);
    const rows = await q.listForAllocation(db, clientId, primary.allocation_id);
    const devices = rows.map((row) => ({
      ...deviceView(row),
      hardware: hardwareView(row, ownerCheck(allocations, row).owner),
    }));
    const reachable = primary.tunnel_status === 'CONNECTED';
    return {
      root: { capabilities },
      primary: {
        devices,
        web_access: webAccess.view(clientId, primary.allocation_id, reachable),
      },
    };
  };
}
