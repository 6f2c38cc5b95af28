// The in-memory router database: one MenuTable per menu available on the
// simulated version, plus the computed views (resource, clock, routerboard)
// and the flash accounting that backups and FTP uploads draw on.
import { MENU_DEFS } from './menu-defs.js';
import { MenuTable } from './menu-table.js';
import type { SimRecord } from './menu-table.js';
import { formatBuildTime, formatDate, formatDateTime, formatDuration, formatTime } from './ros-format.js';
import type { BoardProfile } from './board-profiles.js';
import type { Capabilities } from './version-caps.js';
import type { FaultController } from './faults.js';
import type { Value } from './script-values.js';
import { decodeWin1252 } from './win1252.js';

export interface RouterIdentity {
  serial: string;
  board: BoardProfile;
  caps: Capabilities;
  /** Bytes of flash free at start, before any file the simulator writes. */
  freeHddBytes: number;
  totalHddBytes: number;
  now: () => Date;
}

/** Text files up to this size print their `contents`, as RouterOS does. */
const CONTENTS_LIMIT = 4096;
/** /log keeps this many entries, oldest dropped first (RouterOS memory log default 1000). */
const LOG_LINES = 1000;

/** A file still being written (growingBackup fault): it grows by one step per print. */
interface GrowingFile {
  full: Buffer;
  step: number;
  steps: number;
}

export class RouterState {
  private readonly tables = new Map<string, MenuTable>();
  startedAt: Date;
  /** Uptime already on the clock when the simulator started (a router up for days); 0 after a reboot. */
  #uptimeBeforeStartS = 3 * 86400 + 4 * 3600 + 17 * 60;
  /** File bytes present when the simulator started (seeded files do not eat the free space). */
  private baselineFileBytes = 0;
  private readonly growing = new Map<number, GrowingFile>();
  /** `:global` variables of scripts; they live as long as the router runs. */
  readonly globals = new Map<string, Value>();

  constructor(
    readonly identity: RouterIdentity,
    private readonly faults: FaultController,
  ) {
    this.startedAt = identity.now();
    for (const def of MENU_DEFS) {
      if (!def.available || def.available(identity.caps)) this.tables.set(def.path, new MenuTable(def));
    }
  }

  /** The router came back from a reboot now: its uptime starts from zero. */
  restart(): void {
    this.startedAt = this.identity.now();
    this.#uptimeBeforeStartS = 0;
  }

  get caps(): Capabilities {
    return this.identity.caps;
  }

  /** The table of a menu, or undefined when this version has no such menu. */
  menu(path: string): MenuTable | undefined {
    return this.tables.get(path);
  }

  table(path: string): MenuTable {
    const t = this.tables.get(path);
    if (!t) throw new Error(`menu ${path} does not exist on RouterOS ${this.caps.version.text}`);
    return t;
  }

  menuPaths(): string[] {
    return [...this.tables.keys()];
  }

  /** Call once seeding is over: seeded files count as already on flash. */
  markSeeded(): void {
    this.baselineFileBytes = this.fileBytes();
  }

  // ---- files -------------------------------------------------------------

  private fileBytes(): number {
    return this.table('/file')
      .list()
      .reduce((sum, f) => sum + (f.blob?.length ?? 0), 0);
  }

  freeHddBytes(): number {
    if (this.faults.active.outOfFlash) return 0;
    return Math.max(0, this.identity.freeHddBytes - (this.fileBytes() - this.baselineFileBytes));
  }

  findFile(name: string): SimRecord | undefined {
    return this.table('/file').findBy('name', name.replace(/^\/+/, ''));
  }

  readFile(name: string): Buffer | undefined {
    return this.findFile(name)?.blob;
  }

  /** Creates or replaces a file; throws 'not enough space' when flash is short (unless seeding). */
  writeFile(name: string, data: Buffer, seeding = false): SimRecord {
    const clean = name.replace(/^\/+/, '');
    const files = this.table('/file');
    const existing = files.findBy('name', clean);
    const growth = data.length - (existing?.blob?.length ?? 0);
    if (!seeding && growth > 0 && growth > this.freeHddBytes()) throw new Error('not enough space');
    const props = this.fileProps(clean, data);
    if (existing) {
      this.growing.delete(existing.id);
      existing.blob = data;
      files.update(existing, props);
      return existing;
    }
    return files.insert(props, data);
  }

  /**
   * Writes a file that appears partial and reaches its full size only after
   * `polls` prints of /file (a backup still being written). The whole size is
   * reserved at once, so a full flash still fails up front.
   */
  writeGrowingFile(name: string, data: Buffer, polls: number): SimRecord {
    const rec = this.writeFile(name, data);
    if (polls > 0 && data.length > 0) {
      this.growing.set(rec.id, { full: data, step: 0, steps: polls });
      this.setBlob(rec, data.subarray(0, Math.ceil(data.length / (polls + 1))));
    }
    return rec;
  }

  private setBlob(rec: SimRecord, blob: Buffer): void {
    rec.blob = blob;
    this.table('/file').update(rec, { size: String(blob.length) });
  }

  private advanceGrowth(rec: SimRecord): void {
    const g = this.growing.get(rec.id);
    if (!g) return;
    g.step++;
    if (g.step >= g.steps) this.growing.delete(rec.id);
    const size =
      g.step >= g.steps ? g.full.length : Math.ceil((g.full.length * (g.step + 1)) / (g.steps + 1));
    this.setBlob(rec, g.full.subarray(0, size));
  }

  // ---- log ---------------------------------------------------------------

  /** Appends to /log, as :log and the hotspot do. */
  log(topics: string, message: string): void {
    const log = this.menu('/log');
    if (!log) return;
    log.insert({ time: formatTime(this.identity.now()), topics, message });
    if (log.size > LOG_LINES) {
      const oldest = log.list()[0];
      if (oldest) log.delete(oldest);
    }
  }

  makeDirectory(name: string): SimRecord {
    const ts = formatDateTime(this.caps, this.identity.now());
    return this.table('/file').insert({ name, type: 'directory', [this.caps.fileTimeField]: ts });
  }

  private fileProps(name: string, data: Buffer): Record<string, string> {
    const ts = formatDateTime(this.caps, this.identity.now());
    return { name, type: fileType(name), size: String(data.length), [this.caps.fileTimeField]: ts };
  }

  // ---- printable views -----------------------------------------------------

  /**
   * Whether `view` shows a record's own properties only: no computed ones, and printing it changes
   * nothing (a growing /file does).
   */
  plainView(table: MenuTable): boolean {
    return !['/system/resource', '/system/clock', '/file'].includes(table.path);
  }

  /** A record as `print` shows it, with the computed properties of its menu. */
  view(table: MenuTable, rec: SimRecord): Record<string, string> {
    switch (table.path) {
      case '/system/resource':
        return this.resourceView();
      case '/system/clock':
        return this.clockView(rec);
      case '/file':
        this.advanceGrowth(rec);
        return table.view(rec, this.fileContents(rec));
      default:
        return table.view(rec);
    }
  }

  private fileContents(rec: SimRecord): Record<string, string> | undefined {
    const blob = rec.blob;
    if (!blob || blob.length > CONTENTS_LIMIT || !isTextFile(rec.props.name ?? '')) return undefined;
    // decoded the way the wire encodes it, so the client gets the exact bytes back
    return { contents: decodeWin1252(blob) };
  }

  private resourceView(): Record<string, string> {
    const { board, caps } = this.identity;
    const now = this.identity.now();
    const uptime = (now.getTime() - this.startedAt.getTime()) / 1000 + this.#uptimeBeforeStartS;
    const buildTime = new Date(Date.UTC(caps.version.major === 6 ? 2023 : 2025, 4, 27, 10, 15, 3));
    const used = Math.round(board.totalMemory * 0.42);
    const out: Record<string, string> = {
      uptime: formatDuration(Math.floor(uptime)),
      version: caps.versionLabel,
      'build-time': formatBuildTime(caps, buildTime),
    };
    if (caps.resourceFactorySoftware) out['factory-software'] = board.firmware || '7.1';
    Object.assign(out, {
      'free-memory': String(board.totalMemory - used),
      'total-memory': String(board.totalMemory),
      cpu: board.cpu,
      'cpu-count': String(board.cpuCount),
      'cpu-frequency': String(board.cpuFrequency),
      'cpu-load': String(3 + (Math.floor(now.getTime() / 1000) % 7)),
      'free-hdd-space': String(this.freeHddBytes()),
      'total-hdd-space': String(this.identity.totalHddBytes),
      'write-sect-since-reboot': '1843',
      'write-sect-total': '482113',
    });
    if (caps.resourceBadBlocks) out['bad-blocks'] = '0';
    Object.assign(out, {
      'architecture-name': board.architecture,
      'board-name': board.boardName,
      platform: 'MikroTik',
    });
    return out;
  }

  private clockView(rec: SimRecord): Record<string, string> {
    const now = this.identity.now();
    return {
      time: formatTime(now),
      date: formatDate(this.caps, now),
      'time-zone-autodetect': 'true',
      'time-zone-name': 'Africa/Dakar',
      'gmt-offset': '+00:00',
      'dst-active': 'false',
      ...rec.props,
    };
  }
}

const TEXT_EXT = /\.(txt|rsc|html?|js|css|xml|json|csv|log)$/i;

function isTextFile(name: string): boolean {
  return TEXT_EXT.test(name);
}

function fileType(name: string): string {
  if (name.endsWith('.backup')) return 'backup';
  if (name.endsWith('.rsc')) return 'script';
  if (name.endsWith('.npk')) return 'package';
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1];
  return ext ? `.${ext} file` : 'file';
}
