// What the equipment module needs from the modules before it, as narrow as it uses them.
import type { AllocationsService } from '../allocations/index.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { LicencesService } from '../licences/index.js';
import type { NotificationsService } from '../notifications/index.js';
import type { NasService } from '../nas/index.js';

export interface EquipmentDeps {
  allocations: Pick<AllocationsService, 'get' | 'list' | 'getWithOwner'>;
  nas: Pick<NasService, 'topology' | 'addTopologyExtension'>;
  runner: Pick<AgentCommandRunner, 'run' | 'runForRequest'>;
  licences: Pick<LicencesService, 'listForClient' | 'listPlans'>;
  notifications: Pick<NotificationsService, 'notify'>;
}

export interface EquipmentOptions {
  quotaEnforced: boolean;
  /** First and last dst-nat port of each router's range. */
  ports: readonly [number, number];
  /** How long a request waits for a router change or read through the agent. */
  commandWaitMs: number;
}
