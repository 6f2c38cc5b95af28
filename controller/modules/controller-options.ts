// What a caller of createController may pass besides the config: tests inject a clock, a database,
// fakes for external systems and shorter timers here; production passes only config and logger.
import type { Config } from '../config.js';
import type { Clock } from '../core/clock.js';
import type { DatabaseHandle } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { AgentHubOptions } from '../hub/index.js';
import type { NasDirectory, RadiusServiceOptions } from '../radius/index.js';
import type { MigrationOptions } from './migration/index.js';
import type { BandwidthOptions } from './bandwidth/index.js';
import type { HttpClient, PushSender } from './notifications/index.js';
import type { ProbeOptions, VpnHost } from './remote-access/index.js';

export interface ControllerOptions {
  config: Config;
  logger: Logger;
  /** Tests inject a clock or an already-open database (e.g. a fresh PostgreSQL schema). */
  clock?: Clock;
  database?: DatabaseHandle;
  /** Tests shorten the hub's timers (handshake timeout, heartbeat, sweep). */
  hub?: Partial<Omit<AgentHubOptions, 'instanceId'>>;
  /** Where RADIUS finds each NAS and its secret: the NAS table unless a test or bench injects one. */
  nasDirectory?: NasDirectory;
  /** Tests and benchmarks tune the RADIUS group commit and retransmit window. */
  radius?: Partial<Omit<RadiusServiceOptions, 'interimSeconds'>>;
  /** Tests shorten the run lease and the agent command waits; the flags always come from the config. */
  migration?: Partial<Omit<MigrationOptions, 'autoConfirm'>>;
  /** Tests replace the push sender, or the HTTP client under the FCM sender (never the network). */
  pushSender?: PushSender;
  /**
   * Tests shorten how long the equipment relay waits for a device's answer, how long it keeps an
   * idle connection to a device, and the web access idle time.
   */
  equipment?: { relayTimeoutMs?: number; relayKeepIdleMs?: number; webAccessIdleMs?: number };
  httpClient?: HttpClient;
  /** Tests inject a fake {vpn_host} end and shorten the management probe's waits. */
  remoteAccess?: { vpnHost?: VpnHost; probe?: Partial<ProbeOptions> };
  /** Tests and benchmarks shorten the bandwidth pass's command wait and lease. */
  bandwidth?: Partial<BandwidthOptions>;
}
