// The statements every command goes through (enqueue, send, ack, result, wait), compiled once per
// database by Kysely (correct SQL for either dialect), then only run. Building and compiling a
// Kysely query costs 30-80 µs and a burst of short-lived objects; a command runs six of these, so
// at 10k agents that was a good part of the round trip and of the garbage collector's work.
// Everything else (a fresh link's resends, the sweep, the expiry job) builds its queries per call.
// Every statement goes through the group commit (see group-commit.ts), reads included: they run one
// after another in the next group. On SQLite, Kysely hands its single connection to one query at a
// time through a mutex that wakes every waiting query on each release, so a burst of 1,000 commands
// whose reads queued there cost ~O(1,000²) wake-ups (a third of the burst's time, with the garbage).
// On SQLite a group's statements run synchronously, outside Kysely (statement-sessions.ts).
import type { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { PreparedStatement, slot } from '../db/prepared-statement.js';
import { then, type StatementSessions } from '../db/statement-sessions.js';
import { GroupCommit } from './group-commit.js';
import { linkHeldBy, linkOfCommandHeldBy } from './link-queries.js';
import { OPEN_COMMAND_STATES, type AgentCommandsTable, type CommandState } from './tables.js';

/** The columns a new command is stored with as given; the rest are NULL, or follow from its link. */
const STORED_COLUMNS = [
  'id',
  'allocation_id',
  'client_id',
  'name',
  'params',
  'deadline',
  'created_at',
] as const satisfies readonly (keyof AgentCommandsTable)[];

export type Outcome = Pick<
  AgentCommandsTable,
  'output' | 'fault_code' | 'fault_message' | 'fault_retryable' | 'finished_at'
> & { state: 'DONE' | 'FAILED' };

// A new command waits behind the writes of the commands already out (group-commit.ts).
const FRESH = { fresh: true } as const;
const ATOMIC = { atomic: true } as const;

export class CommandStatements {
  readonly #store: PreparedStatement<{ state: CommandState }>;
  readonly #findForClient: PreparedStatement<AgentCommandsTable>;
  readonly #findForAllocation: PreparedStatement<AgentCommandsTable>;
  readonly #claimQueued: PreparedStatement<AgentCommandsTable>;
  readonly #claimOpen: PreparedStatement<unknown>;
  readonly #markAcked: PreparedStatement<unknown>;
  readonly #finish: PreparedStatement<AgentCommandsTable>;
  readonly #setParams: PreparedStatement<unknown>;
  readonly #writes: GroupCommit;

  /**
   * `db` compiles the statements, `sessions` runs them (on the same database). `rowLocks`: the
   * dialect's capability (PostgreSQL), see `linkOfCommandHeldBy`.
   */
  constructor(db: Db, sessions: StatementSessions, logger: Logger, rowLocks: boolean) {
    this.#writes = new GroupCommit(sessions, logger);
    // INSERT … SELECT over one derived row `h` saying whether connection `sid` holds the link (one
    // primary-key read of agent_links): the command is stored and, when it may go out at once, its
    // send recorded, in one statement. Columns left out keep their NULL default; the attempt count is
    // a literal, so PostgreSQL types it as the integer column it fills.
    const held = db
      .selectNoFrom((eb) =>
        eb.exists(linkHeldBy(eb, eb.val(slot(1)), slot(STORED_COLUMNS.length), rowLocks)).as('held'),
      )
      .as('h');
    this.#store = new PreparedStatement(
      db
        .insertInto('agent_commands')
        .columns([...STORED_COLUMNS, 'state', 'sent_at', 'attempts'])
        .expression(
          db.selectFrom(held).select((eb) => [
            ...STORED_COLUMNS.map((c, i) => eb.val(slot(i)).as(c)),
            eb.case().when(eb.ref('h.held')).then(eb.val('SENT')).else(eb.val('QUEUED')).end().as('state'),
            eb
              .case()
              .when(eb.ref('h.held'))
              .then(eb.val(slot(STORED_COLUMNS.length + 1)))
              .end()
              .as('sent_at'),
            eb.case().when(eb.ref('h.held')).then(eb.lit(1)).else(eb.lit(0)).end().as('attempts'),
          ]),
        )
        .returning('state')
        .compile() as CompiledQuery<{ state: CommandState }>,
    );
    this.#findForClient = new PreparedStatement(
      db
        .selectFrom('agent_commands')
        .selectAll()
        .where('client_id', '=', slot(0))
        .where('id', '=', slot(1))
        .compile(),
    );
    this.#findForAllocation = new PreparedStatement(
      db
        .selectFrom('agent_commands')
        .selectAll()
        .where('allocation_id', '=', slot(0))
        .where('id', '=', slot(1))
        .compile(),
    );
    // QUEUED → SENT on the link of session `sid` only, found by primary key, the row returned: the
    // in-process send of a command just queued in one statement. (Reading the allocation's QUEUED
    // commands first would cost a second statement, and without table statistics SQLite answers that
    // read through the (state, deadline) index, i.e. by scanning every QUEUED command.)
    this.#claimQueued = new PreparedStatement(
      db
        .updateTable('agent_commands')
        .set((eb) => ({ state: 'SENT' as CommandState, sent_at: slot(2), attempts: eb('attempts', '+', 1) }))
        .where('id', '=', slot(0))
        .where('state', '=', 'QUEUED')
        .where('deadline', '>', slot(2))
        .where(linkOfCommandHeldBy(slot(1), rowLocks))
        .returningAll()
        .compile(),
    );
    // One more send of an open command (a fresh link's resends, the sweep's QUEUED ones), on the link
    // of session `sid` only: QUEUED becomes SENT, SENT and ACKED stay as they are.
    this.#claimOpen = new PreparedStatement(
      db
        .updateTable('agent_commands')
        .set((eb) => ({
          state: eb
            .case()
            .when('state', '=', 'QUEUED')
            .then('SENT' as CommandState)
            .else(eb.ref('state'))
            .end(),
          sent_at: slot(2),
          attempts: eb('attempts', '+', 1),
        }))
        .where('id', '=', slot(0))
        .where('state', 'in', OPEN_COMMAND_STATES)
        .where('deadline', '>', slot(2))
        .where(linkOfCommandHeldBy(slot(1), rowLocks))
        .compile(),
    );
    this.#markAcked = new PreparedStatement(
      db
        .updateTable('agent_commands')
        .set({ state: 'ACKED', acked_at: slot(2) })
        .where('allocation_id', '=', slot(0))
        .where('id', '=', slot(1))
        .where('state', 'in', ['QUEUED', 'SENT'])
        .compile(),
    );
    // Guarded by the open states, so a command already final is left exactly as it is. A result
    // implies the agent had the command: an acknowledgement not recorded yet (it came in the same
    // batch as this result, or was lost) is recorded with it.
    this.#finish = new PreparedStatement(
      db
        .updateTable('agent_commands')
        .set((eb) => ({
          state: slot<'DONE' | 'FAILED'>(2),
          output: slot(3),
          fault_code: slot(4),
          fault_message: slot(5),
          fault_retryable: slot<number>(6),
          finished_at: slot(7),
          acked_at: eb.fn.coalesce('acked_at', eb.val(slot(7))),
        }))
        .where('allocation_id', '=', slot(0))
        .where('id', '=', slot(1))
        .where('state', 'in', OPEN_COMMAND_STATES)
        .returningAll()
        .compile(),
    );
    this.#setParams = new PreparedStatement(
      db
        .updateTable('agent_commands')
        .set({ params: slot(1) })
        .where('id', '=', slot(0))
        .compile(),
    );
  }

  /**
   * Stores a new command in one statement: SENT (sent_at `now`, first attempt) when the link of its
   * allocation is held by connection `sid`, else QUEUED (also with no `sid`). Answers the row as
   * stored. A SENT row is the caller's to send on that connection at once.
   */
  async insert(row: AgentCommandsTable, sid: string | undefined, now: string): Promise<AgentCommandsTable> {
    const values = STORED_COLUMNS.map((c) => row[c] as unknown);
    values.push(sid ?? null, now);
    const stored = await this.#writes.run((run) => run.rows(this.#store, values), FRESH);
    if (stored[0]?.state !== 'SENT') return row;
    return { ...row, state: 'SENT', sent_at: now, attempts: 1 };
  }

  async findForClient(clientId: string, id: string): Promise<AgentCommandsTable | undefined> {
    return (await this.#writes.run((run) => run.rows(this.#findForClient, [clientId, id])))[0];
  }

  /** A command as its agent may see it: only the commands of its own allocation. */
  async findForAllocation(allocationId: string, id: string): Promise<AgentCommandsTable | undefined> {
    return (await this.#writes.run((run) => run.rows(this.#findForAllocation, [allocationId, id])))[0];
  }

  async claimQueued(id: string, sid: string, now: string): Promise<AgentCommandsTable | undefined> {
    return (await this.#writes.run((run) => run.rows(this.#claimQueued, [id, sid, now])))[0];
  }

  /**
   * Records one more send of an open command on the link of session `sid`; false when that session
   * no longer holds the link, the command is final or past its deadline (then it must not go out).
   */
  async claimOpen(id: string, sid: string, now: string): Promise<boolean> {
    return (await this.#writes.run((run) => run.changes(this.#claimOpen, [id, sid, now]))) === 1;
  }

  async markAcked(allocationId: string, id: string, now: string): Promise<boolean> {
    return (await this.#writes.run((run) => run.changes(this.#markAcked, [allocationId, id, now]))) === 1;
  }

  /**
   * Writes the outcome once; the final row when this call wrote it. `redact` (a command with secret
   * params) turns the stored params JSON into what is kept once the command is final (undefined:
   * nothing to change); the params are rewritten in the same transaction as the outcome.
   */
  async finish(
    allocationId: string,
    id: string,
    o: Outcome,
    redact?: (params: string) => string | undefined,
  ): Promise<AgentCommandsTable | undefined> {
    const values = [allocationId, id, o.state, o.output, o.fault_code, o.fault_message, o.fault_retryable];
    values.push(o.finished_at);
    if (redact === undefined) return (await this.#writes.run((run) => run.rows(this.#finish, values)))[0];
    return this.#writes.run(
      (run) =>
        then(run.rows(this.#finish, values), (rows) => {
          const row = rows[0];
          const params = row === undefined ? undefined : redact(row.params);
          if (row === undefined || params === undefined) return row;
          return then(run.changes(this.#setParams, [row.id, params]), () => ({ ...row, params }));
        }),
      ATOMIC,
    );
  }
}
