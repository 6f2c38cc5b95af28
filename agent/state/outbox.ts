// Reports waiting for the controller's report_ack, one file each, so they survive a lost link
// and a restart. File names carry a sequence number so a directory listing gives sending order
// without reading every file, whatever the clock did.
import { mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { isoTimeSchema, jsonObjectSchema, MESSAGE_SCHEMAS, uuidSchema } from '../../protocol/index.js';
import type { MessageBody } from '../../protocol/index.js';
import { readTextIfExists, removeFileDurably, TEMP_PREFIX, writeFileAtomic } from './atomic-file.js';
import { isoTime } from '../../protocol/index.js';

/** A report as stored and as sent (the body of a `report` message). */
export type Report = MessageBody<'report'>;
/** What a report says: `facts`, `telemetry` or `event`. */
export type ReportKind = Report['kind'];

const REPORT_FILE_SCHEMA = z.object({
  id: uuidSchema,
  kind: MESSAGE_SCHEMAS.report.shape.kind,
  at: isoTimeSchema,
  data: jsonObjectSchema,
});

const FILE_NAME = /^(\d{12})-([0-9a-f-]{36})\.json$/;

/** One waiting report, as indexed in memory. */
export interface OutboxEntry {
  readonly seq: number;
  readonly id: string;
  readonly file: string;
}

/** Something the outbox wants logged (a dropped or unreadable report). */
export interface OutboxLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface OutboxOptions {
  /**
   * Most reports kept; beyond it the oldest are dropped. A RouterOS container has little flash and
   * an agent may stay offline for months; telemetry is 288 reports a day.
   */
  maxEntries?: number;
  logger?: OutboxLogger;
}

/** Default `maxEntries`: about two weeks of telemetry and hourly facts. */
export const DEFAULT_OUTBOX_MAX_ENTRIES = 5000;

export class Outbox {
  readonly #dir: string;
  readonly #maxEntries: number;
  readonly #logger: OutboxLogger | undefined;
  // Insertion order is sending order: loaded sorted, then appended with increasing seq.
  readonly #entries = new Map<string, OutboxEntry>();
  #nextSeq = 1;

  private constructor(dir: string, options: OutboxOptions) {
    this.#dir = dir;
    this.#maxEntries = options.maxEntries ?? DEFAULT_OUTBOX_MAX_ENTRIES;
    this.#logger = options.logger;
  }

  /** Opens (and creates) the outbox directory and indexes what a previous run left. */
  static async open(dir: string, options: OutboxOptions = {}): Promise<Outbox> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const outbox = new Outbox(dir, options);
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      const match = FILE_NAME.exec(name);
      if (match === null) continue;
      const seq = Number(match[1]);
      const id = match[2] as string;
      outbox.#entries.set(id, { seq, id, file: name });
      outbox.#nextSeq = Math.max(outbox.#nextSeq, seq + 1);
    }
    await removeStaleTemps(dir, names);
    return outbox;
  }

  /** Number of report files in an outbox directory, without opening it (for `status`). */
  static async count(dir: string): Promise<number> {
    try {
      return (await readdir(dir)).filter((name) => FILE_NAME.test(name)).length;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
  }

  /** Reports waiting. */
  get size(): number {
    return this.#entries.size;
  }

  /** Waiting reports, oldest first. */
  entries(): OutboxEntry[] {
    return [...this.#entries.values()];
  }

  /** True when report `id` is still waiting. */
  has(id: string): boolean {
    return this.#entries.has(id);
  }

  /** Stores a new report durably and returns it; it is sent when the link allows. */
  async add(kind: ReportKind, data: Record<string, unknown>, at: Date): Promise<Report> {
    const report = REPORT_FILE_SCHEMA.parse({ id: uuidv7(), kind, at: isoTime(at), data });
    // The seq is taken before the first await so concurrent adds keep their call order.
    const seq = this.#nextSeq++;
    const file = `${String(seq).padStart(12, '0')}-${report.id}.json`;
    await writeFileAtomic(join(this.#dir, file), JSON.stringify(report));
    this.#entries.set(report.id, { seq, id: report.id, file });
    await this.#trim();
    return report;
  }

  /** The stored report of an entry, or undefined if it is gone or unreadable (then it is set aside). */
  async read(entry: OutboxEntry): Promise<Report | undefined> {
    const path = join(this.#dir, entry.file);
    const text = await readTextIfExists(path);
    if (text === undefined) {
      this.#entries.delete(entry.id);
      return undefined;
    }
    try {
      const report = REPORT_FILE_SCHEMA.parse(JSON.parse(text));
      if (report.id === entry.id) return report;
    } catch {
      // handled below
    }
    // A torn or foreign file cannot be sent; keep it for a human, out of the sending order.
    this.#entries.delete(entry.id);
    await rename(path, `${path}.corrupt`).catch(() => undefined);
    this.#logger?.warn({ file: entry.file }, 'unreadable outbox report set aside');
    return undefined;
  }

  /** Deletes acknowledged reports; ids not in the outbox are ignored. Returns how many were deleted. */
  async remove(ids: Iterable<string>): Promise<number> {
    let removed = 0;
    for (const id of ids) {
      const entry = this.#entries.get(id);
      if (entry === undefined) continue;
      // Forgotten only once the file is gone, so `size` never says less than the disk holds.
      await removeFileDurably(join(this.#dir, entry.file));
      if (this.#entries.delete(id)) removed++;
    }
    return removed;
  }

  async #trim(): Promise<void> {
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.values().next().value as OutboxEntry;
      this.#entries.delete(oldest.id);
      await removeFileDurably(join(this.#dir, oldest.file));
      this.#logger?.warn({ id: oldest.id, max: this.#maxEntries }, 'outbox full: oldest report dropped');
    }
  }
}

async function removeStaleTemps(dir: string, names: readonly string[]): Promise<void> {
  // A temp file is what a crash left mid-write; its report was never acknowledged to anyone.
  for (const name of names) {
    if (name.startsWith(TEMP_PREFIX)) await removeFileDurably(join(dir, name));
  }
}
