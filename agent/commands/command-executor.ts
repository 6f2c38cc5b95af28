// Runs the controller's commands under the journal rules of the agent link (docs/agent-link.md):
// known id → re-send its stored result (or just ack while it is pending), never run it again;
// new id → journal (fsync) first, then ack, then run in arrival order, then journal the result,
// then send it. A command whose deadline has passed is not started (FAILED DEADLINE_PASSED).
// The deadline is the command's time to live counted from its receipt on the monotonic clock
// (`monotonicMs()`): the controller's clock and this machine's (a router without NTP starts at a
// default date) are never compared. After a restart the monotonic clock is gone, so a recovered
// command's deadline is its receipt plus its time to live on this machine's wall clock (`expires_at`).
import { MAX_COMMAND_TTL_MS, parseCommandOutput, parseCommandParams } from '../../protocol/index.js';
import type { Fault, KnownCommand } from '../../protocol/index.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import { JournalCorruptError } from '../state/command-journal.js';
import type { CommandBody, CommandJournal, JournalEntry, ResultBody } from '../state/command-journal.js';
import type { CommandCatalogue, CommandContext, CommandHandler } from './command-catalogue.js';
import { fault, faultFromError } from './fault-from-error.js';
import { isoTime } from '../../protocol/index.js';
import { monotonicMs } from '../../protocol/monotonic-time.js';

/** Where acks and results go: the live link, or nowhere (false) while it is down. */
export interface CommandTransport {
  send(type: 'ack', body: { id: string }): Promise<boolean>;
  send(type: 'result', body: ResultBody): Promise<boolean>;
}

export interface ExecutorLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface CommandExecutorOptions {
  journal: CommandJournal;
  /** The one router connection, opened on first use and reused. */
  router: RouterConnection;
  catalogue: CommandCatalogue;
  transport: CommandTransport;
  logger: ExecutorLogger;
  ftpPort?: number | undefined;
  now?: () => Date;
}

class DeadlineReached extends Error {
  override readonly name = 'DeadlineReached';
}

class AgentStopping extends Error {
  override readonly name = 'AgentStopping';
}

export class CommandExecutor {
  readonly #o: CommandExecutorOptions;
  readonly #now: () => Date;
  readonly #queue: string[] = [];
  // Receipts run one after another: commands are queued in arrival order, and a command
  // re-delivered while its journal write is pending finds it written.
  #receipts: Promise<void> = Promise.resolve();
  #receiving = 0;
  // Finished results not yet handed to a live link (sent on the next connection).
  readonly #unsent = new Set<string>();
  // Deadlines on the monotonic clock of commands received by this process, by id.
  readonly #expiry = new Map<string, number>();
  #worker: Promise<void> | undefined;
  #current: AbortController | undefined;
  #stopped = false;

  constructor(options: CommandExecutorOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Picks up what a previous run left: waiting commands are queued again (in arrival order); a
   * command that was running when the agent died is FAILED, because whether it took effect on
   * the router is unknown (retryable: every catalogue command is idempotent).
   */
  async recover(): Promise<void> {
    // Entries are read one at a time and only their ids are kept: outputs can be large, and a
    // week of entries would not fit in the agent's heap together.
    const waiting: Mark[] = [];
    const unsent: Mark[] = [];
    for await (const entry of this.#o.journal.entries()) {
      const mark = { id: entry.command.id, receivedAt: entry.received_at };
      if (entry.state === 'ACCEPTED') {
        waiting.push(mark);
      } else if (entry.state === 'RUNNING') {
        await this.#finish(
          entry,
          failed(entry, fault('AGENT_ERROR', 'interrupted by an agent restart', true)),
          false,
        );
        unsent.push(mark);
      } else if (!entry.result_sent) {
        unsent.push(mark);
      }
    }
    for (const { id } of inArrivalOrder(waiting)) this.#queue.push(id);
    // #finish put the interrupted one in first: the set is rebuilt in arrival order.
    this.#unsent.clear();
    for (const { id } of inArrivalOrder(unsent)) this.#unsent.add(id);
    this.#kick();
  }

  /** Handles a `command` from the controller. Resolves once it is acknowledged (or answered). */
  receive(command: CommandBody): Promise<void> {
    // The time to live runs from now, not from the end of the receipts queued before this one.
    const receivedAt = monotonicMs();
    this.#receiving++;
    const receipt = this.#receipts
      .then(() => this.#receive(command, receivedAt))
      .catch((err: unknown) =>
        this.#o.logger.error({ id: command.id, err: (err as Error).message }, 'command receipt failed'),
      )
      .finally(() => this.#receiving--);
    this.#receipts = receipt;
    return receipt;
  }

  /** Sends the results that finished while the link was down. Call on each (re)connect. */
  async resendUnsent(): Promise<void> {
    for (const id of [...this.#unsent]) {
      const entry = await this.#read(id);
      if (entry?.result === undefined) {
        this.#unsent.delete(id);
        continue;
      }
      if (!(await this.#sendResult(entry))) return;
    }
  }

  /** Resolves when nothing is queued or running. */
  async idle(): Promise<void> {
    while (this.#worker !== undefined || this.#receiving > 0) {
      await Promise.all([this.#worker, this.#receipts]);
    }
  }

  /** Stops taking work; a running command is aborted and recorded as FAILED (retryable). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#current?.abort(new AgentStopping('the agent stopped during the command'));
    await this.#worker;
  }

  async #receive(command: CommandBody, receivedAt: number): Promise<void> {
    const known = await this.#read(command.id);
    if (known !== undefined) {
      // Re-delivery: answer from the journal, never run it twice.
      if (known.result !== undefined) await this.#sendResult(known);
      else await this.#o.transport.send('ack', { id: command.id });
      return;
    }
    const now = this.#now();
    const ttl = timeToLive(command, now);
    const entry: JournalEntry = {
      command,
      state: 'ACCEPTED',
      received_at: isoTime(now),
      expires_at: isoTime(new Date(now.getTime() + ttl)),
      result_sent: false,
    };
    try {
      await this.#o.journal.put(entry);
    } catch (err) {
      // Not persisted, so no ack: the controller re-sends it on the next connection.
      this.#o.logger.error(
        { id: command.id, err: (err as Error).message },
        'cannot journal command; not acknowledged',
      );
      return;
    }
    this.#expiry.set(command.id, receivedAt + ttl);
    await this.#o.transport.send('ack', { id: command.id });
    this.#queue.push(command.id);
    this.#kick();
  }

  async #read(id: string): Promise<JournalEntry | undefined> {
    try {
      return await this.#o.journal.get(id);
    } catch (err) {
      if (!(err instanceof JournalCorruptError)) throw err;
      // Unknown outcome: report it as failed rather than risk running the command twice.
      const entry: JournalEntry = {
        command: { id, name: 'unknown', params: {}, deadline: isoTime(this.#now()) },
        state: 'FAILED',
        received_at: isoTime(this.#now()),
        result_sent: false,
      };
      entry.result = failed(
        entry,
        fault('AGENT_ERROR', 'journal entry of this command was unreadable', true),
      );
      await this.#o.journal.put(entry);
      return entry;
    }
  }

  #kick(): void {
    if (this.#worker !== undefined || this.#stopped) return;
    this.#worker = this.#work().finally(() => {
      this.#worker = undefined;
      if (this.#queue.length > 0 && !this.#stopped) this.#kick();
    });
  }

  // One command at a time: a router's CPU is small, and order is what the controller sent.
  async #work(): Promise<void> {
    for (let id = this.#queue.shift(); id !== undefined && !this.#stopped; id = this.#queue.shift()) {
      try {
        const entry = await this.#read(id);
        if (entry === undefined || entry.result !== undefined) continue;
        await this.#execute(entry);
      } catch (err) {
        this.#o.logger.error({ id, err: (err as Error).message }, 'command execution failed');
      }
    }
  }

  async #execute(entry: JournalEntry): Promise<void> {
    const { command } = entry;
    const check = parseCommandParams(command.name, command.params);
    if (!check.ok) return this.#finish(entry, failed(entry, check.fault));
    // A catalogue without this command (an older build's, in tests) answers as that build would.
    if (!Object.hasOwn(this.#o.catalogue, check.value.name)) {
      return this.#finish(entry, failed(entry, fault('UNKNOWN_COMMAND', `unknown command ${command.name}`)));
    }
    const now = this.#now();
    const remainingMs = this.#remainingMs(entry, now);
    if (remainingMs <= 0) {
      return this.#finish(
        entry,
        failed(entry, fault('DEADLINE_PASSED', 'its time to live had run out before it started')),
      );
    }
    // Stopping: leave it ACCEPTED, the next start runs it.
    if (this.#stopped) return;
    entry.state = 'RUNNING';
    entry.started_at = isoTime(now);
    await this.#o.journal.put(entry);
    this.#o.logger.info({ id: command.id, command: command.name }, 'command started');
    await this.#finish(entry, await this.#run(entry, check.value, remainingMs));
  }

  // Time left on the monotonic clock for a command this process received; for one a previous run
  // journalled, what is left of its time to live on this machine's wall clock.
  #remainingMs(entry: JournalEntry, now: Date): number {
    const expiry = this.#expiry.get(entry.command.id);
    const left =
      expiry !== undefined
        ? expiry - monotonicMs()
        : Date.parse(entry.expires_at ?? entry.command.deadline) - now.getTime();
    return Math.min(MAX_COMMAND_TTL_MS, left);
  }

  async #run(entry: JournalEntry, known: KnownCommand, remainingMs: number): Promise<ResultBody> {
    const abort = new AbortController();
    this.#current = abort;
    // stop() may have come while the RUNNING state was being written.
    if (this.#stopped) abort.abort(new AgentStopping('the agent stopped during the command'));
    const timer = setTimeout(() => abort.abort(new DeadlineReached()), remainingMs);
    // A handler that ignores its signal must still not hold the queue past the deadline.
    const aborted = new Promise<never>((_, reject) => {
      if (abort.signal.aborted) reject(abort.signal.reason);
      else abort.signal.addEventListener('abort', () => reject(abort.signal.reason), { once: true });
    });
    aborted.catch(() => undefined);
    try {
      const handler = this.#o.catalogue[known.name] as CommandHandler<typeof known.name>;
      const context: CommandContext<typeof known.name> = {
        router: this.#o.router,
        params: known.params as never,
        command: entry.command,
        signal: abort.signal,
        ftpPort: this.#o.ftpPort,
      };
      const output = await Promise.race([handler(context), aborted]);
      const checked = parseCommandOutput(known.name, output);
      if (!checked.ok) return failed(entry, checked.fault);
      return { id: entry.command.id, status: 'DONE', output: checked.value };
    } catch (err) {
      const reason: unknown = abort.signal.aborted ? abort.signal.reason : err;
      if (reason instanceof DeadlineReached) {
        return failed(entry, fault('DEADLINE_PASSED', 'its time to live ran out while it was running'));
      }
      if (reason instanceof AgentStopping) return failed(entry, fault('AGENT_ERROR', reason.message, true));
      return failed(entry, faultFromError(reason));
    } finally {
      clearTimeout(timer);
      this.#current = undefined;
    }
  }

  async #finish(entry: JournalEntry, result: ResultBody, send = true): Promise<void> {
    this.#expiry.delete(entry.command.id);
    entry.state = result.status;
    entry.result = result;
    entry.finished_at = isoTime(this.#now());
    await this.#o.journal.put(entry);
    const fields = { id: entry.command.id, command: entry.command.name, status: result.status };
    if (result.status === 'DONE') this.#o.logger.info(fields, 'command done');
    else this.#o.logger.warn({ ...fields, fault: result.fault }, 'command failed');
    this.#unsent.add(entry.command.id);
    if (send) await this.#sendResult(entry);
  }

  async #sendResult(entry: JournalEntry): Promise<boolean> {
    if (entry.result === undefined) return false;
    const sent = await this.#o.transport.send('result', entry.result);
    if (sent) {
      this.#unsent.delete(entry.command.id);
      if (!entry.result_sent) {
        entry.result_sent = true;
        await this.#o.journal.put(entry);
      }
    }
    return sent;
  }
}

function failed(entry: JournalEntry, why: Fault): ResultBody {
  return { id: entry.command.id, status: 'FAILED', fault: why };
}

// The time to live of a command as received: the link fills `ttl_ms` in; a caller that gives none
// (a direct use, an older journal) falls back to the deadline against this machine's clock.
function timeToLive(command: CommandBody, now: Date): number {
  const ttl = command.ttl_ms ?? Date.parse(command.deadline) - now.getTime();
  return Math.min(MAX_COMMAND_TTL_MS, Math.max(0, Number.isFinite(ttl) ? ttl : 0));
}

/** A journal entry reduced to what recovery orders by. */
interface Mark {
  id: string;
  receivedAt: string;
}

// ISO-8601 times of one format sort as plain strings; localeCompare would load ICU's collation data
// (about 3 MiB of RSS) for nothing.
const inArrivalOrder = (marks: Mark[]): Mark[] =>
  marks.sort((a, b) => (a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : 0));
