// Runtime-settable fault injection. Tests set faults on a running simulator
// (sim.faults.set({...}) in-process, or PUT /faults on the control port) to
// reproduce what sites actually see: routers that refuse, stall, lose power,
// run out of flash or silently stop deleting users.

export interface FailCommandFault {
  /** Full command path, e.g. "/system/backup/save" or "/ip/hotspot/user/remove". */
  path: string;
  message: string;
  category?: number;
}

export interface Faults {
  /** Close each new API connection right after accept; 'reset' sends an RST instead of a FIN. */
  refuseConnections?: boolean | 'reset';
  /** Delay before every command is answered, in milliseconds. */
  delayMs?: number;
  /** Stop answering and never close (router lost power). Applies after `afterCommands` more commands. */
  dropSocketSilently?: boolean;
  /** Destroy the socket with an RST (client sees ECONNRESET) on the next command, after `afterCommands`. */
  resetConnection?: boolean;
  /** Answer the next command with `!fatal <message>` and close (e.g. "system is rebooting"), after `afterCommands`. */
  fatal?: string;
  /** Commands still answered normally (counted over all connections) before drop/reset/fatal kicks in. */
  afterCommands?: number;
  /** Make a command trap instead of running. */
  failCommand?: FailCommandFault | FailCommandFault[];
  /** free-hdd-space reads 0 and /system/backup/save traps "not enough space". */
  outOfFlash?: boolean;
  /** Backup reported done but the file never appears. */
  loseBackup?: boolean;
  /** Backup file is created with 0 bytes. */
  emptyBackup?: boolean;
  /** After this many hotspot users have been removed, further removals answer !done but do nothing. */
  stallRemovalsAfter?: number;
}

const KNOWN: ReadonlySet<string> = new Set([
  'refuseConnections',
  'delayMs',
  'dropSocketSilently',
  'resetConnection',
  'fatal',
  'afterCommands',
  'failCommand',
  'outOfFlash',
  'loseBackup',
  'emptyBackup',
  'stallRemovalsAfter',
]);

export class FaultController {
  private current: Faults = {};
  /** Commands answered since the faults were last set (for afterCommands). */
  private commandsSinceSet = 0;
  /** Hotspot users removed since the faults were last set (for stallRemovalsAfter). */
  private removalsSinceSet = 0;
  /** A drop fault has taken effect: every connection is silent until the faults change. */
  private dropping = false;

  get active(): Readonly<Faults> {
    return this.current;
  }

  /** Merges into the current faults; counters restart. */
  set(faults: Faults): void {
    for (const key of Object.keys(faults)) {
      if (!KNOWN.has(key)) throw new Error(`unknown fault "${key}"`);
    }
    this.current = { ...this.current, ...faults };
    this.commandsSinceSet = 0;
    this.removalsSinceSet = 0;
    this.dropping = Boolean(this.current.dropSocketSilently) && !this.current.afterCommands;
  }

  /** Replaces all faults. */
  replace(faults: Faults): void {
    this.clear();
    this.set(faults);
  }

  clear(): void {
    this.current = {};
    this.commandsSinceSet = 0;
    this.removalsSinceSet = 0;
    this.dropping = false;
  }

  /** Called for every command received; says what the connection must do with it. */
  onCommand(): 'answer' | 'drop' | 'reset' | 'fatal' {
    const f = this.current;
    if (!f.dropSocketSilently && !f.resetConnection && f.fatal === undefined) return 'answer';
    if (this.commandsSinceSet < (f.afterCommands ?? 0)) {
      this.commandsSinceSet++;
      return 'answer';
    }
    if (!f.dropSocketSilently) return f.resetConnection ? 'reset' : 'fatal';
    this.dropping = true;
    return 'drop';
  }

  /** True while every connection must stay silent (the router "lost power"). */
  get silent(): boolean {
    return this.dropping;
  }

  failureFor(commandPath: string): FailCommandFault | undefined {
    const f = this.current.failCommand;
    const list = f === undefined ? [] : Array.isArray(f) ? f : [f];
    return list.find((x) => x.path === commandPath);
  }

  /** Whether one more hotspot-user removal may take effect (and counts it). */
  allowRemoval(): boolean {
    const limit = this.current.stallRemovalsAfter;
    if (limit === undefined) return true;
    if (this.removalsSinceSet >= limit) return false;
    this.removalsSinceSet++;
    return true;
  }
}
