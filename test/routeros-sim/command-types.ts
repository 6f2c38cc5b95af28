// Shapes shared by the session, the dispatcher and the command handlers.
import type { FaultController } from './faults.js';
import type { HotspotNas } from './hotspot-nas.js';
import type { Prng } from './prng.js';
import type { SimTunnels } from './vpn-tunnels.js';
import type { SimBackToHome } from './back-to-home.js';
import type { RecordView } from './query-filter.js';
import type { RouterState } from './router-state.js';
import type { WanLink } from './wan-link.js';

/** A RouterOS `!trap`: the command failed; the session answers !trap then !done. */
export class RosTrap extends Error {
  constructor(
    message: string,
    readonly category?: number,
  ) {
    super(message);
  }
}

/** Thrown for a command path the router does not know. */
export const noSuchCommandPrefix = (): RosTrap => new RosTrap('no such command prefix');
export const noSuchCommand = (): RosTrap => new RosTrap('no such command');
export const noSuchItem = (): RosTrap => new RosTrap('no such item');

export interface SimContext {
  state: RouterState;
  faults: FaultController;
  credentials: { username: string; password: string };
  timing: {
    /** Interval between /ping replies when the command gives none. */
    pingIntervalMs: number;
    /** Time /system/backup/save takes before answering. */
    backupDelayMs: number;
  };
  /** Runtime randomness (ping times, keys) — seeded too, so runs repeat. */
  rng: Prng;
  /** The router's hotspot as a RADIUS NAS (logins, sessions, accounting). */
  nas: HotspotNas;
  /** The remote-access tunnels (WireGuard, SSTP client) and whether each is up. */
  tunnels: SimTunnels;
  /** The Back To Home relay under /ip/cloud. */
  backToHome: SimBackToHome;
  /** The Internet link: round trip and loss of echoes past the WAN (`/ping`, netwatch ICMP). */
  wan: WanLink;
}

export interface CommandRequest {
  /** Full command word, e.g. "/ip/hotspot/user/print". */
  path: string;
  /** `=name=value` attributes (`.proplist` excluded), decoded as win1252. */
  attrs: Map<string, string>;
  /** `?` query words without the "?". */
  queries: string[];
  proplist?: string[];
  tag?: string;
  /** Extra filter for print (a script's `print where ...`); API queries still apply. */
  where?: (view: RecordView) => boolean;
}

export type ReplyProps = Record<string, string | Buffer>;

export interface CommandContext {
  req: CommandRequest;
  sim: SimContext;
  /** Sends one `!re` (dropped once the command is cancelled or finished). */
  re(props: ReplyProps): void;
  /** Sends `!empty` (the caller checks the version supports it). */
  empty(): void;
  /** Aborted by /cancel or when the connection closes. */
  signal: AbortSignal;
}

/** Attributes for the final `!done` (e.g. `{ ret: '*1A' }`). */
export type CommandResult = Record<string, string> | void;

export type CommandHandler = (ctx: CommandContext) => Promise<CommandResult> | CommandResult;

/** Resolves after `ms`, or early when the signal aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
