// One file per command id: what was asked, how far it got, and its result. It is what makes a
// re-delivered command harmless: a known id is never executed again, its stored result is re-sent.
// Once a command has its result, its secret params (the catalogue's `secretParams`) are no longer
// needed and are not written again: the entry keeps them redacted.
import { readdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { FAULT_SCHEMA, isoTimeSchema, MESSAGE_SCHEMAS, redactParams } from '../../protocol/index.js';
import type { MessageBody } from '../../protocol/index.js';
import { readTextIfExists, removeFileDurably, TEMP_PREFIX, writeFileAtomic } from './atomic-file.js';

/** A command as received (the body of a `command` message). */
export type CommandBody = MessageBody<'command'>;
/** A command outcome as sent (the body of a `result` message). */
export type ResultBody = MessageBody<'result'>;

/**
 * - `ACCEPTED`: stored and acknowledged, waiting its turn.
 * - `RUNNING`: started on the router.
 * - `DONE` / `FAILED`: finished; `result` holds what was (or will be) sent.
 */
export const JOURNAL_STATES = ['ACCEPTED', 'RUNNING', 'DONE', 'FAILED'] as const;
export type JournalState = (typeof JOURNAL_STATES)[number];

const RESULT_SCHEMA = z.object({
  id: z.string(),
  status: z.enum(['DONE', 'FAILED']),
  output: z.unknown().optional(),
  fault: FAULT_SCHEMA.optional(),
});

const ENTRY_SCHEMA = z.object({
  command: MESSAGE_SCHEMAS.command,
  state: z.enum(JOURNAL_STATES),
  received_at: isoTimeSchema,
  expires_at: isoTimeSchema.optional(),
  started_at: isoTimeSchema.optional(),
  finished_at: isoTimeSchema.optional(),
  result: RESULT_SCHEMA.optional(),
  /** True once the result went out on a live link (it may still be re-sent on request). */
  result_sent: z.boolean(),
});

/** One command's journal file. */
export interface JournalEntry {
  command: CommandBody;
  state: JournalState;
  received_at: string;
  /** Receipt plus the command's time to live, on this machine's clock (absent in older entries). */
  expires_at?: string | undefined;
  started_at?: string | undefined;
  finished_at?: string | undefined;
  result?: ResultBody | undefined;
  result_sent: boolean;
}

/**
 * How long a journal entry outlives its command's deadline (a re-delivery after that is not possible).
 * The deadline is the agent's own (`expires_at`), so a controller clock far off never prunes early.
 */
export const JOURNAL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

const STALE_TEMP_MS = 60 * 60 * 1000;

const UUID_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/i;

export interface JournalLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export class CommandJournal {
  constructor(
    readonly dir: string,
    private readonly logger?: JournalLogger,
  ) {}

  /** Number of journal files in a directory (for `status`). */
  static async count(dir: string): Promise<number> {
    try {
      return (await readdir(dir)).filter((name) => UUID_FILE.test(name)).length;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
  }

  /** The entry of command `id`, or undefined when this agent never received it (or pruned it). */
  async get(id: string): Promise<JournalEntry | undefined> {
    const path = this.#path(id);
    const text = await readTextIfExists(path);
    if (text === undefined) return undefined;
    const parsed = ENTRY_SCHEMA.safeParse(safeJson(text));
    if (parsed.success) return parsed.data as JournalEntry;
    // Atomic writes make this a foreign or hand-edited file. Reading it as "unknown" would
    // execute the command again; set it aside and report it as failed instead (see executor).
    await rename(path, `${path}.corrupt`).catch(() => undefined);
    this.logger?.warn({ id }, 'unreadable journal entry set aside');
    throw new JournalCorruptError(id);
  }

  /**
   * Writes an entry durably (fsync before this resolves); owner-only, as backups hold router secrets.
   * An entry with its result is written with its secret params redacted (the atomic write replaces
   * the whole file, so the clear ones are gone from it); `entry` itself is left as it is.
   */
  async put(entry: JournalEntry): Promise<void> {
    const redacted =
      entry.result === undefined ? undefined : redactParams(entry.command.name, entry.command.params);
    const stored =
      redacted === undefined ? entry : { ...entry, command: { ...entry.command, params: redacted } };
    await writeFileAtomic(this.#path(entry.command.id), JSON.stringify(stored), { mode: 0o600 });
  }

  /**
   * The readable entries one at a time (unordered). Never all at once: an entry holds its command's
   * output (an export, a backup), and a week of them would not fit in the agent's heap.
   */
  async *entries(): AsyncGenerator<JournalEntry> {
    for (const name of await readdir(this.dir)) {
      const match = UUID_FILE.exec(name);
      if (match === null) continue;
      let entry: JournalEntry | undefined;
      try {
        entry = await this.get(match[1] as string);
      } catch (err) {
        if (!(err instanceof JournalCorruptError)) throw err;
      }
      if (entry !== undefined) yield entry;
    }
  }

  /** Deletes entries whose deadline is more than `retentionMs` before `now`, and stale temp files. */
  async prune(now: Date, retentionMs = JOURNAL_RETENTION_MS): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.dir)) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      // A temp file older than any write in progress is what a crash left behind.
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info !== undefined && now.getTime() - info.mtimeMs > STALE_TEMP_MS) await removeFileDurably(path);
    }
    for await (const entry of this.entries()) {
      const deadline = Date.parse(entry.expires_at ?? entry.command.deadline);
      // Only finished entries go: an unfinished one is still owed a result.
      if (entry.result === undefined || deadline + retentionMs > now.getTime()) continue;
      await removeFileDurably(this.#path(entry.command.id));
      removed++;
    }
    return removed;
  }

  #path(id: string): string {
    // Ids come off the wire; only a UUID may become a file name.
    if (!UUID_FILE.test(`${id}.json`)) throw new RangeError(`not a command id: ${id}`);
    return join(this.dir, `${id.toLowerCase()}.json`);
  }
}

/** A journal file exists but cannot be read back. */
export class JournalCorruptError extends Error {
  override readonly name = 'JournalCorruptError';
  constructor(readonly id: string) {
    super(`journal entry of command ${id} is unreadable`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
