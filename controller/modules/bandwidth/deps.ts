// What the bandwidth module is built from: its database and clock, and the services of the
// modules it uses (reached through their index.ts).
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { Logger } from '../../logger.js';
import type { RadiusService } from '../../radius/index.js';
import type { LinkStateReader } from '../allocations/index.js';
import type { LicencesService } from '../licences/index.js';
import type { NasService } from '../nas/index.js';
import type { NotificationsService } from '../notifications/index.js';
import type { UsageService } from '../usage/index.js';

export interface BandwidthOptions {
  /** Longest wait for one router's `bandwidth.apply` in a pass. */
  commandWaitMs: number;
  /** How long a pass holds the routers it took (another pass skips them meanwhile). */
  passLeaseMs: number;
  /** Routers worked on at once in a pass. */
  concurrency: number;
}

export const DEFAULT_BANDWIDTH_OPTIONS: BandwidthOptions = {
  commandWaitMs: 20_000,
  passLeaseMs: 120_000,
  concurrency: 64,
};

/**
 * A cap another module imposes on routers: the satellite plan's quota smoothing sets an effective
 * cap that the reconciliation applies (never above the manager's own `limit_mbps`, and only while
 * the router has an enabled programme). Asked once per pass for the routers it took.
 */
export interface ImposedCaps {
  /** Mbps by nas_id, for those of `routers` that carry one now; a router absent carries none. */
  capsFor(
    routers: readonly { clientId: string; nasId: string }[],
    now: Date,
  ): Promise<ReadonlyMap<string, number>>;
}

export interface BandwidthDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  licences: LicencesService;
  nas: NasService;
  runner: AgentCommandRunner;
  /**
   * The agents' links as the hub records them. A pass sends to a link the hub holds CONNECTED,
   * however long since its last heartbeat was written: a loaded controller writes them late, and a
   * link that is really gone ends in the command's wait (counted unreachable).
   */
  links: LinkStateReader;
  usage: UsageService;
  radius: RadiusService;
  notifications: NotificationsService;
  options: BandwidthOptions;
}
