// Runtime-settable fault injection. Tests set faults on a running simulator
// (sim.faults.set({...}) in-process, or PUT /faults on the control port) to
// reproduce what sites actually see: routers that refuse, stall, lose power,
// run out of flash or silently stop deleting users.
//
// Every fault, what the client sees, and its default:
//
// | fault               | effect                                                                 |
// |---------------------|------------------------------------------------------------------------|
// | refuseConnections   | new API connections closed at once (FIN, or RST with 'reset')          |
// | delayMs             | every reply waits this long                                            |
// | dropSocketSilently  | after `afterCommands`, nothing is answered and nothing is closed       |
// | resetConnection     | after `afterCommands`, the next command gets an RST                    |
// | fatal               | after `afterCommands`, the next command gets `!fatal <text>` + close   |
// | fatalAfter          | once N commands were answered, every connection gets an unsolicited    |
// |                     | `!fatal` (router shutting down) and is closed                          |
// | failCommand         | a command path traps (API and scripts); `afterCalls` lets N through,   |
// |                     | `times` stops trapping after N traps                                   |
// | itemGone            | the items an API command names (`.id`, `numbers`) leave their menu    |
// |                     | just before it runs (a lease the DHCP server dropped meanwhile): the   |
// |                     | command answers as RouterOS does for them, `!trap` "no such item"      |
// | outOfFlash          | free-hdd-space 0, backups trap "not enough space"                      |
// | loseBackup          | backup answers !done, no file                                          |
// | emptyBackup         | backup file of 0 bytes                                                 |
// | growingBackup       | backup file appears partial and grows over N /file prints (true = 3)   |
// | stallRemovalsAfter  | hotspot-user removals stop taking effect (still !done)                 |
// | stallAddsAfter      | after N hotspot-user adds (API or script), further adds answer !done   |
// |                     | with a new id (=ret=) but nothing is stored                            |
// | countImpossible     | `/ip/hotspot/user/print count-only` traps                              |
// | removeUnverifiable  | removals of hotspot users apply, then every print of them traps        |
// | fileReadChunkCap    | /file/read chunk-size limit: 32768 by default (as RouterOS); a number  |
// |                     | sets another cap, false relaxes to 1 MiB                               |
// | fragmentReplies     | reply bytes go out in small separate TCP writes (true = up to 7 bytes) |
// | noise               | extra sentences: replies on unknown tags, unknown reply words          |
// |                     | (true = a chance of 0.25 before each reply; or the chance itself)      |
// | blockWireguardUdp   | WireGuard handshakes never reach the VPN end (UDP filtered on the way) |
// | stuckSessions       | hotspot sessions of these users (true: all) do not end on a Disconnect  |
// |                     | (still ACKed) nor on an /ip/hotspot/active remove (still !done)         |
// | radiusUnreachable   | the hotspot's RADIUS requests are never sent (true / 'requests'), or   |
// |                     | sent but every reply is dropped ('replies')                            |
import { EventEmitter } from 'node:events';

export interface FailCommandFault {
  /** Full command path, e.g. "/system/backup/save" or "/ip/hotspot/user/remove" ("/radius/add" in a script too). */
  path: string;
  message: string;
  category?: number;
  /** The first N matching calls run normally; the (N+1)th and later trap (e.g. interrupt a restore midway). */
  afterCalls?: number;
  /** Only this many calls trap (after `afterCalls`); later ones run normally again (a passing fault). */
  times?: number;
}

export interface ItemGoneFault {
  /** Full command path naming an item of its menu, e.g. "/ip/dhcp-server/lease/make-static". */
  path: string;
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
  /** Once this many commands have been answered, send an unsolicited `!fatal` on every connection and close it. */
  fatalAfter?: number | { commands: number; message?: string };
  /** Make a command trap instead of running. */
  failCommand?: FailCommandFault | FailCommandFault[];
  /** The items these API commands name are removed from their menu right before the command runs. */
  itemGone?: ItemGoneFault | ItemGoneFault[];
  /** free-hdd-space reads 0 and /system/backup/save traps "not enough space". */
  outOfFlash?: boolean;
  /** Backup reported done but the file never appears. */
  loseBackup?: boolean;
  /** Backup file is created with 0 bytes. */
  emptyBackup?: boolean;
  /** Backup file grows over this many /file prints before it is complete (true = 3). */
  growingBackup?: boolean | number;
  /** After this many hotspot users have been removed, further removals answer !done but do nothing. */
  stallRemovalsAfter?: number;
  /** After this many hotspot users have been added, further adds answer !done with a new id but store nothing. */
  stallAddsAfter?: number;
  /** `print count-only` on /ip/hotspot/user traps (true, or the trap message). */
  countImpossible?: boolean | string;
  /** Hotspot-user removals apply, but every later print/count of /ip/hotspot/user traps. */
  removeUnverifiable?: boolean | string;
  /** Largest /file/read chunk-size accepted (default 32768, like RouterOS); false allows up to 1 MiB. */
  fileReadChunkCap?: number | false;
  /** Split every reply into TCP writes of at most this many bytes (true = 7). */
  fragmentReplies?: boolean | number;
  /** Chance of an extra junk sentence before each reply (true = 0.25). */
  noise?: boolean | number;
  /** RADIUS requests of the hotspot are not sent (true, 'requests') or their replies are dropped ('replies'). */
  radiusUnreachable?: boolean | 'requests' | 'replies';
  /** WireGuard's UDP never reaches the VPN end: no handshake (SSTP over TCP 443 still passes). */
  blockWireguardUdp?: boolean;
  /** Sessions of these hotspot users (true: every user) survive a Disconnect (ACKed) and an active remove (!done). */
  stuckSessions?: boolean | readonly string[];
}

const KNOWN: ReadonlySet<string> = new Set([
  'refuseConnections',
  'delayMs',
  'dropSocketSilently',
  'resetConnection',
  'fatal',
  'afterCommands',
  'fatalAfter',
  'failCommand',
  'itemGone',
  'outOfFlash',
  'loseBackup',
  'emptyBackup',
  'growingBackup',
  'stallRemovalsAfter',
  'stallAddsAfter',
  'countImpossible',
  'removeUnverifiable',
  'fileReadChunkCap',
  'fragmentReplies',
  'noise',
  'radiusUnreachable',
  'blockWireguardUdp',
  'stuckSessions',
]);

/** What RouterOS answers when its configuration database does not respond in time. */
export const ROUTER_BUSY_MESSAGE =
  'action timed out - try again, if error continues contact MikroTik support and send a supout file (13)';
export const FILE_READ_CHUNK_CAP = 32768;
const RELAXED_CHUNK_CAP = 1024 * 1024;
const DEFAULT_GROWTH_POLLS = 3;
const DEFAULT_FRAGMENT_BYTES = 7;
const DEFAULT_NOISE_CHANCE = 0.25;

/**
 * Emits 'shutdown' (message) when a fatalAfter fault fires; the simulator
 * then sends !fatal on every connection.
 */
export class FaultController extends EventEmitter {
  private current: Faults = {};
  /** Commands answered since the faults were last set (for afterCommands). */
  private commandsSinceSet = 0;
  /** Commands fully answered since the faults were last set (for fatalAfter). */
  private answeredSinceSet = 0;
  /** Hotspot users removed since the faults were last set (for stallRemovalsAfter). */
  private removalsSinceSet = 0;
  /** Hotspot users added since the faults were last set (for stallAddsAfter). */
  private addsSinceSet = 0;
  /** A hotspot user was really removed since the faults were set (for removeUnverifiable). */
  private userRemoved = false;
  /** Matching calls seen per failCommand entry (for afterCalls). */
  private failCalls = new Map<FailCommandFault, number>();
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
    this.resetCounters();
    this.dropping = Boolean(this.current.dropSocketSilently) && !this.current.afterCommands;
    if (this.fatalAfterLimit() === 0) setImmediate(() => this.fireShutdown());
  }

  /** Replaces all faults. */
  replace(faults: Faults): void {
    this.clear();
    this.set(faults);
  }

  clear(): void {
    this.current = {};
    this.resetCounters();
    this.dropping = false;
  }

  private resetCounters(): void {
    this.commandsSinceSet = 0;
    this.answeredSinceSet = 0;
    this.removalsSinceSet = 0;
    this.addsSinceSet = 0;
    this.userRemoved = false;
    this.failCalls = new Map();
  }

  /** True when a logout of this hotspot user's session must be acknowledged and not happen. */
  sessionStuck(user: string): boolean {
    const stuck = this.current.stuckSessions;
    return stuck === true || (Array.isArray(stuck) && stuck.includes(user));
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

  /** Called once per command when its final reply (!done) has gone out. */
  onCommandAnswered(): void {
    const limit = this.fatalAfterLimit();
    if (limit === undefined) return;
    this.answeredSinceSet++;
    if (this.answeredSinceSet === limit) setImmediate(() => this.fireShutdown());
  }

  private fatalAfterLimit(): number | undefined {
    const f = this.current.fatalAfter;
    return typeof f === 'number' ? f : f?.commands;
  }

  private fireShutdown(): void {
    const f = this.current.fatalAfter;
    if (f === undefined) return;
    this.emit('shutdown', (typeof f === 'object' ? f.message : undefined) ?? 'system is rebooting');
  }

  /** True while every connection must stay silent (the router "lost power"). */
  get silent(): boolean {
    return this.dropping;
  }

  /** The failCommand entry that applies to this call, if any (each call counts toward afterCalls). */
  failureFor(commandPath: string): FailCommandFault | undefined {
    const f = this.current.failCommand;
    const list = f === undefined ? [] : Array.isArray(f) ? f : [f];
    const match = list.find((x) => x.path === commandPath);
    if (!match) return undefined;
    const seen = (this.failCalls.get(match) ?? 0) + 1;
    this.failCalls.set(match, seen);
    const after = match.afterCalls ?? 0;
    if (seen <= after || (match.times !== undefined && seen > after + match.times)) return undefined;
    return match;
  }

  /** Whether the items this command names must be gone before it runs (itemGone). */
  itemGoneFor(commandPath: string): boolean {
    const f = this.current.itemGone;
    const list = f === undefined ? [] : Array.isArray(f) ? f : [f];
    return list.some((x) => x.path === commandPath);
  }

  /** Whether one more hotspot-user removal may take effect (and counts it). */
  allowRemoval(): boolean {
    const limit = this.current.stallRemovalsAfter;
    if (limit === undefined) return true;
    if (this.removalsSinceSet >= limit) return false;
    this.removalsSinceSet++;
    return true;
  }

  /** Whether one more hotspot-user add may be stored (and counts it). */
  allowAdd(): boolean {
    const limit = this.current.stallAddsAfter;
    if (limit === undefined) return true;
    if (this.addsSinceSet >= limit) return false;
    this.addsSinceSet++;
    return true;
  }

  /** A hotspot user was actually removed. */
  noteUserRemoved(): void {
    this.userRemoved = true;
  }

  /** Trap message for a print the faults forbid, or undefined. */
  printRefusal(menuPath: string, countOnly: boolean): string | undefined {
    if (menuPath !== '/ip/hotspot/user') return undefined;
    const { countImpossible, removeUnverifiable } = this.current;
    if (countOnly && countImpossible) return messageOf(countImpossible);
    if (removeUnverifiable && this.userRemoved) return messageOf(removeUnverifiable);
    return undefined;
  }

  /** Polls of /file a new backup takes to reach its full size (0: written at once). */
  backupGrowthPolls(): number {
    const g = this.current.growingBackup;
    if (g === undefined || g === false) return 0;
    return g === true ? DEFAULT_GROWTH_POLLS : Math.max(0, Math.floor(g));
  }

  fileReadChunkLimit(): number {
    const cap = this.current.fileReadChunkCap;
    if (cap === false) return RELAXED_CHUNK_CAP;
    return cap ?? FILE_READ_CHUNK_CAP;
  }

  /** Largest TCP write for replies, or undefined to write each sentence at once. */
  fragmentBytes(): number | undefined {
    const f = this.current.fragmentReplies;
    if (f === undefined || f === false) return undefined;
    return f === true ? DEFAULT_FRAGMENT_BYTES : Math.max(1, Math.floor(f));
  }

  noiseChance(): number {
    const n = this.current.noise;
    if (n === undefined || n === false) return 0;
    return n === true ? DEFAULT_NOISE_CHANCE : Math.min(1, Math.max(0, n));
  }

  /** How the hotspot's RADIUS traffic is lost, if it is. */
  radiusLoss(): 'requests' | 'replies' | undefined {
    const r = this.current.radiusUnreachable;
    if (r === undefined || r === false) return undefined;
    return r === true ? 'requests' : r;
  }
}

function messageOf(v: boolean | string): string {
  return typeof v === 'string' ? v : ROUTER_BUSY_MESSAGE;
}
