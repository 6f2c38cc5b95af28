// The API other modules use to act on a router: store a command, let the hub carry it over the
// agent's link, read or await its outcome. A command is durable (stored QUEUED before any send),
// carries a deadline, and ends DONE, FAILED or EXPIRED exactly once.
import {
  COMMANDS,
  isKnownCommand,
  parseCommandOutput,
  parseCommandParams,
  redactParams,
  type CommandSpec,
  type MessageBody,
} from '../../protocol/index.js';
import { AppError } from '../core/app-error.js';
import { iso, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import type { Db } from '../db/database.js';
import { statementSessions } from '../db/statement-sessions.js';
import type { Logger } from '../logger.js';
import type { AllocationsService } from '../modules/allocations/index.js';
import type { CommandSignals } from './command-signals.js';
import * as q from './command-queries.js';
import { CommandStatements, type Outcome } from './command-statements.js';
import { FINAL_COMMAND_STATES, type AgentCommandsTable, type CommandState } from './tables.js';

/** A command as callers and clients see it. */
export interface CommandView {
  id: string;
  allocation_id: string;
  name: string;
  params: Record<string, unknown>;
  state: CommandState;
  deadline: string;
  created_at: string;
  sent_at: string | null;
  acked_at: string | null;
  finished_at: string | null;
  attempts: number;
  output: unknown;
  fault: { code: string; message: string; retryable: boolean } | null;
}

export interface EnqueueOptions {
  /** Time from now until the deadline; the catalogue's default timeout when absent. */
  timeoutMs?: number;
}

export interface CommandServiceOptions {
  /** How often `waitForResult` re-reads the command when no in-process signal came (another instance). */
  pollMs?: number;
  /** The dialect locks rows (PostgreSQL): sends lock their link row, see `linkOfCommandHeldBy`. */
  rowLocks: boolean;
  /** The dialect's statements run synchronously (SQLite): the queue runs them outside Kysely. */
  synchronousStatements: boolean;
}

export const isFinal = (state: CommandState): boolean => FINAL_COMMAND_STATES.includes(state);

/**
 * The agent links this instance holds, as the queue sees them (the hub). A command for an agent
 * linked here is stored and recorded as sent in one commit, then handed straight to its connection.
 */
export interface LocalLinks {
  /** Session id of the open connection of this allocation's agent on this instance, if there is one. */
  sessionOf(allocationId: string): string | undefined;
  /**
   * Sends a command the database recorded as SENT on connection `sid`. When that connection is gone
   * meanwhile, nothing is sent: the connection that took over carries every open command.
   */
  deliverClaimed(allocationId: string, sid: string, row: AgentCommandsTable): void;
}

// Commands enqueued here whose outcome this process has not seen yet (see #openHere). Bounded: an
// entry outlives its command only when another instance finished it, and forgetting costs one read.
const MAX_OPEN_HERE = 100_000;

export class CommandService {
  readonly #pollMs: number;
  readonly #statements: CommandStatements;
  #links: LocalLinks | undefined;
  /**
   * id → client of the commands enqueued by this process and not seen final here. A waiter on one of
   * these needs no first read: it cannot be final yet unless another instance finished it (the poll
   * finds that), because a final state reached here removes it before the signal goes out.
   */
  readonly #openHere = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly signals: CommandSignals,
    private readonly allocations: AllocationsService,
    private readonly logger: Logger,
    options: CommandServiceOptions,
  ) {
    this.#pollMs = options.pollMs ?? 250;
    this.#statements = new CommandStatements(db, statementSessions(db, options), logger, options.rowLocks);
  }

  /** The hub of this instance offers its links; answers the function that withdraws them. */
  attachLinks(links: LocalLinks): () => void {
    this.#links = links;
    return () => {
      if (this.#links === links) this.#links = undefined;
    };
  }

  /**
   * Stores a catalogue command for the client's allocation, then has it sent at once if its agent is
   * connected (else when it connects, until the deadline).
   * @throws AppError UNKNOWN_COMMAND (400), VALIDATION_ERROR (400, bad params), ALLOCATION_NOT_FOUND (404).
   */
  async enqueue(
    clientId: string,
    allocationId: string,
    name: string,
    params: unknown,
    options: EnqueueOptions = {},
  ): Promise<CommandView> {
    const check = parseCommandParams(name, params);
    if (!check.ok) {
      if (check.fault.code === 'UNKNOWN_COMMAND') throw new AppError('UNKNOWN_COMMAND', check.fault.message);
      throw new AppError('VALIDATION_ERROR', check.fault.message, {
        details: [{ field: 'params', message: check.fault.message }],
      });
    }
    if (!(await this.allocations.belongsTo(clientId, allocationId))) {
      throw new AppError('ALLOCATION_NOT_FOUND', 'No allocation with this id');
    }
    const now = this.clock.now();
    const timeoutMs = options.timeoutMs ?? COMMANDS[check.value.name].defaultTimeoutSeconds * 1000;
    const row: AgentCommandsTable = {
      id: newId(),
      allocation_id: allocationId,
      client_id: clientId,
      name: check.value.name,
      params: JSON.stringify(check.value.params),
      state: 'QUEUED',
      deadline: iso(new Date(now.getTime() + timeoutMs)),
      created_at: iso(now),
      sent_at: null,
      acked_at: null,
      finished_at: null,
      attempts: 0,
      output: null,
      fault_code: null,
      fault_message: null,
      fault_retryable: null,
    };
    if (this.#openHere.size >= MAX_OPEN_HERE) this.#openHere.clear();
    this.#openHere.set(row.id, clientId);
    // Linked here: stored and recorded as sent in one statement, sent right after its commit. Else
    // stored, and whoever holds the link (this instance's hub, or another's sweep) sends it.
    const links = this.#links;
    const sid = links?.sessionOf(allocationId);
    let stored: AgentCommandsTable;
    try {
      stored = await this.#statements.insert(row, sid, row.created_at);
    } catch (err) {
      this.#openHere.delete(row.id);
      throw err;
    }
    if (stored.state === 'SENT') links!.deliverClaimed(allocationId, sid!, stored);
    else this.signals.commandQueued(allocationId, row.id);
    return view(stored);
  }

  /** The client's command; 404 COMMAND_NOT_FOUND for an unknown id or another tenant's. */
  async get(clientId: string, id: string): Promise<CommandView> {
    const row = await this.#statements.findForClient(clientId, id);
    if (!row) throw new AppError('COMMAND_NOT_FOUND', 'No command with this id');
    return view(row);
  }

  /**
   * Resolves with the command once it is final, or as it stands when `timeoutMs` passes first.
   * Woken by the in-process signal when the result lands on this instance (which hands over the
   * final row, so no read follows), and by a short poll of the database when it lands on another one.
   */
  async waitForResult(clientId: string, id: string, timeoutMs: number): Promise<CommandView> {
    // A monotonic timer, not the injected clock: this bounds how long the caller waits, not a
    // business rule.
    const giveUpAt = performance.now() + timeoutMs;
    return new Promise<CommandView>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      let reading = false;
      let again = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        stop();
        clearTimeout(timer);
        fn();
      };
      const check = async (): Promise<void> => {
        if (settled) return;
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        clearTimeout(timer);
        let current: CommandView;
        try {
          current = await this.get(clientId, id);
        } catch (err) {
          return settle(() => reject(err as Error));
        } finally {
          reading = false;
        }
        if (isFinal(current.state) || performance.now() >= giveUpAt) return settle(() => resolve(current));
        if (again) {
          again = false;
          return check();
        }
        timer = setTimeout(
          () => void check(),
          Math.max(0, Math.min(this.#pollMs, giveUpAt - performance.now())),
        );
      };
      // Subscribed before the first read: a result landing while that read waits for the database
      // (a burst queues many) must wake this waiter, not leave it to the next poll.
      const stop = this.signals.onCommandFinished(id, (row) => {
        // Another tenant's id: the read answers COMMAND_NOT_FOUND.
        if (row?.client_id === clientId) settle(() => resolve(view(row)));
        else void check();
      });
      // Enqueued here by this client and not final here: the signal will come (or the poll finds an
      // outcome another instance stored), so the first read is saved.
      if (this.#openHere.get(id) === clientId) {
        timer = setTimeout(
          () => void check(),
          Math.max(0, Math.min(this.#pollMs, giveUpAt - performance.now())),
        );
      } else void check();
    });
  }

  /**
   * Deletes the final commands whose deadline is more than `retentionMs` before `now` (scheduler job
   * AGENT_COMMAND_PRUNE), in batches of `batch`. Open commands stay whatever their age.
   */
  async pruneFinished(now: Date, retentionMs: number, batch = 1000): Promise<{ pruned: number }> {
    const before = iso(new Date(now.getTime() - retentionMs));
    let pruned = 0;
    for (;;) {
      const deleted = await q.pruneFinished(this.db, before, batch);
      pruned += deleted;
      if (deleted < batch) return { pruned };
    }
  }

  /** Marks every open command past its deadline EXPIRED (scheduler job AGENT_COMMAND_EXPIRY). */
  async expireOverdue(now: Date): Promise<{ expired: number }> {
    const rows = await q.expireOverdue(this.db, iso(now), redactedParams);
    for (const { id } of rows) {
      this.#openHere.delete(id);
      this.signals.commandFinished(id);
    }
    return { expired: rows.length };
  }

  // --- Hub side: what the link does with the queue. ---------------------------------------------

  /** Commands a fresh link of this allocation must carry: QUEUED, and SENT/ACKED ones to resend. */
  openFor(allocationId: string): Promise<AgentCommandsTable[]> {
    return q.openForAllocation(this.db, allocationId, iso(this.clock.now()));
  }

  queuedForInstance(instanceId: string, limit = 1000): Promise<AgentCommandsTable[]> {
    return q.queuedForInstance(this.db, instanceId, iso(this.clock.now()), limit);
  }

  /** True when the command may go out now on the link of session `sid` (and the send is recorded). */
  claimForSend(id: string, sid: string): Promise<boolean> {
    return this.#statements.claimOpen(id, sid, iso(this.clock.now()));
  }

  /**
   * The command just queued, if it is still QUEUED and may go out now on the link of session `sid`;
   * the send is recorded (SENT) in the same statement.
   */
  claimQueued(id: string, sid: string): Promise<AgentCommandsTable | undefined> {
    return this.#statements.claimQueued(id, sid, iso(this.clock.now()));
  }

  /** The agent has persisted the command. Unknown ids and other allocations' commands are ignored. */
  async acknowledge(allocationId: string, id: string): Promise<void> {
    await this.#statements.markAcked(allocationId, id, iso(this.clock.now()));
  }

  /**
   * Records the agent's outcome once. A DONE whose output does not match the catalogue becomes
   * FAILED AGENT_ERROR; a result for a final, unknown or foreign command changes nothing.
   * `at` is the agent's signing time, used to order router facts. `name` is the command's name when
   * the caller knows it (the link that sent it), which saves reading the command first.
   */
  async complete(
    allocationId: string,
    result: MessageBody<'result'>,
    at: string,
    name?: string,
  ): Promise<void> {
    let commandName = name;
    if (commandName === undefined) {
      const row = await this.#statements.findForAllocation(allocationId, result.id);
      if (!row || isFinal(row.state)) {
        this.logger.debug({ allocationId, commandId: result.id }, 'result for no open command ignored');
        return;
      }
      commandName = row.name;
    }
    const finishedAt = iso(this.clock.now());
    let outcome: Outcome;
    let facts: unknown;
    if (result.status === 'DONE') {
      const checked = isKnownCommand(commandName)
        ? parseCommandOutput(commandName, result.output)
        : ({
            ok: false,
            fault: { code: 'UNKNOWN_COMMAND', message: commandName, retryable: false },
          } as const);
      if (checked.ok) {
        outcome = { ...noFault, state: 'DONE', output: json(checked.value), finished_at: finishedAt };
        if (commandName === 'router.facts') facts = checked.value;
      } else {
        outcome = { ...faultColumns(checked.fault), state: 'FAILED', output: null, finished_at: finishedAt };
      }
    } else {
      outcome = {
        ...faultColumns(result.fault),
        state: 'FAILED',
        output: json(result.output),
        finished_at: finishedAt,
      };
    }
    // Guarded by the open states: a final, unknown or foreign command is left as it is. Its secret
    // params go with the same write.
    const finished = await this.#statements.finish(
      allocationId,
      result.id,
      outcome,
      hasSecretParams(commandName) ? (params) => redactedParams(commandName, params) : undefined,
    );
    if (!finished) {
      this.logger.debug({ allocationId, commandId: result.id }, 'result for no open command ignored');
      return;
    }
    this.#openHere.delete(result.id);
    if (facts !== undefined) await this.allocations.recordFacts(allocationId, facts, at);
    this.signals.commandFinished(result.id, finished);
  }
}

const noFault = { fault_code: null, fault_message: null, fault_retryable: null };

const hasSecretParams = (name: string): boolean =>
  isKnownCommand(name) && (COMMANDS[name] as CommandSpec).secretParams !== undefined;

/** The params JSON a final command keeps, or undefined when it keeps them as they are. */
function redactedParams(name: string, params: string): string | undefined {
  if (!hasSecretParams(name)) return undefined;
  const redacted = redactParams(name, JSON.parse(params));
  return redacted === undefined ? undefined : JSON.stringify(redacted);
}

function faultColumns(fault: { code: string; message: string; retryable: boolean }) {
  return { fault_code: fault.code, fault_message: fault.message, fault_retryable: fault.retryable ? 1 : 0 };
}

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

function view(row: AgentCommandsTable): CommandView {
  const params = JSON.parse(row.params) as Record<string, unknown>;
  return {
    id: row.id,
    allocation_id: row.allocation_id,
    name: row.name,
    // An open command still holds its secret params; no answer ever shows them.
    params: redactParams(row.name, params) ?? params,
    state: row.state,
    deadline: row.deadline,
    created_at: row.created_at,
    sent_at: row.sent_at,
    acked_at: row.acked_at,
    finished_at: row.finished_at,
    attempts: row.attempts,
    output: row.output === null ? null : (JSON.parse(row.output) as unknown),
    fault:
      row.fault_code === null
        ? null
        : { code: row.fault_code, message: row.fault_message ?? '', retryable: row.fault_retryable === 1 },
  };
}
