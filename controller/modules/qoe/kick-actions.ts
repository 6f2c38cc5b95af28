// The kick (docs/api/qoe.md, "Kick"): a manager's request to end one hotspot session, recorded as
// a POD_DISCONNECT action and carried by the site agent. A RADIUS session gets a Disconnect-Request
// to the router's `/radius incoming` naming it by address, user and Acct-Session-Id (taken from the
// open accounting session); a local user's session is removed from `/ip/hotspot/active`. The answer
// is 202 RUNNING: recorded, never done. The reconciler (job, and each accounting Stop) decides.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import type { AgentCommandRunner, CommandService } from '../../hub/index.js';
import { errorFields, type Logger } from '../../logger.js';
import { disconnectRequest, type RadiusService, type SessionStop } from '../../radius/index.js';
import type { NasService } from '../nas/index.js';
import * as q from './action-queries.js';
import { kickVerdict, type CommandState, type KickVerdict } from './kick-verdict.js';
import type { KickBody } from './schemas.js';
import type { QoeActionsTable } from './tables.js';

export interface KickDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  nas: NasService;
  radius: RadiusService;
  commands: CommandService;
  runner: AgentCommandRunner;
}

/** How long the session has to be seen ending before the action is FAILED. */
export const KICK_DEADLINE_MS = 120_000;
/** An action whose command was not queued (the request died on the way) is dispatched after this. */
const DISPATCH_GRACE_MS = 30_000;
/** Longest wait for one read of a router's active list in a reconciler pass. */
const ACTIVE_READ_WAIT_MS = 10_000;
/** Actions one reconciler pass looks at. */
const PASS_LIMIT = 200;

export type ActionView = ReturnType<typeof actionView>;

export function actionView(a: QoeActionsTable) {
  return {
    id: a.id,
    type: a.type,
    state: a.state,
    nas_id: a.nas_id,
    username: a.username,
    session_id: a.session_id,
    method: a.method,
    router_answer: a.router_answer,
    reason: a.reason,
    ended_by: a.ended_by,
    created_at: a.created_at,
    deadline_at: a.deadline_at,
    finished_at: a.finished_at,
  };
}

export class KickActions {
  constructor(private readonly deps: KickDeps) {}

  /**
   * Records the kick and queues its command; answers the action RUNNING.
   * @throws AppError NAS_NOT_FOUND (not the client's live NAS), QOE_SESSION_NOT_FOUND (`session_id`
   * names no open accounting session of this user on this NAS).
   */
  async kick(clientId: string, body: KickBody): Promise<ActionView> {
    const nas = await this.deps.nas.findLive(clientId, body.nas_id);
    if (!nas) throw new AppError('NAS_NOT_FOUND', 'No NAS with this id');
    const open = await this.deps.radius.openSession(clientId, nas.id, body.username, body.session_id);
    if (body.session_id !== undefined && !open)
      throw new AppError(
        'QOE_SESSION_NOT_FOUND',
        'No open session of this user with this session_id on this NAS',
      );
    const now = this.deps.clock.now();
    const row: QoeActionsTable = {
      id: newId(),
      client_id: clientId,
      nas_id: nas.id,
      allocation_id: nas.allocation_id,
      type: 'POD_DISCONNECT',
      username: body.username,
      session_id: open?.acctSessionId ?? null,
      framed_ip: open?.framedIp ?? null,
      // Without the host's address RouterOS cannot tell which session a Disconnect means.
      method: open?.framedIp ? 'RADIUS_DISCONNECT' : 'HOTSPOT_ACTIVE_REMOVE',
      state: 'RUNNING',
      reason: null,
      ended_by: null,
      router_answer: null,
      command_id: null,
      created_at: iso(now),
      updated_at: iso(now),
      deadline_at: iso(new Date(now.getTime() + KICK_DEADLINE_MS)),
      finished_at: null,
    };
    await q.insertAction(this.deps.db, row);
    // Recorded first: a request that dies here leaves the reconciler to queue the command.
    await this.#dispatch(row).catch((err: unknown) =>
      this.deps.logger.warn(
        { ...errorFields(err, this.deps.logger), actionId: row.id },
        'kick not queued yet',
      ),
    );
    return actionView((await q.findAction(this.deps.db, clientId, row.id)) ?? row);
  }

  /** @throws AppError QOE_ACTION_NOT_FOUND (unknown, or another client's). */
  async get(clientId: string, id: string): Promise<ActionView> {
    const row = await q.findAction(this.deps.db, clientId, id);
    if (!row) throw new AppError('QOE_ACTION_NOT_FOUND', 'No action with this id');
    return actionView(row);
  }

  /** An accounting Stop was committed: the kicks waiting on that session have seen it end. */
  async sessionStopped(stop: SessionStop): Promise<void> {
    const waiting = await q.runningForSession(this.deps.db, stop.clientId, stop.nasId, stop.acctSessionId);
    for (const action of waiting)
      await this.#settle(action, { state: 'SUCCEEDED', endedBy: 'ACCOUNTING_STOP' });
  }

  /** One reconciler pass over the RUNNING actions. */
  async reconcile(now: Date): Promise<{ checked: number; succeeded: number; failed: number }> {
    const counts = { checked: 0, succeeded: 0, failed: 0 };
    const activeLists = new Map<string, Promise<{ user: string; address: string }[] | null>>();
    for (const action of await q.listRunning(this.deps.db, PASS_LIMIT)) {
      counts.checked += 1;
      try {
        const verdict = await this.#judge(action, now, activeLists);
        if (verdict.state !== 'RUNNING' && (await this.#settle(action, verdict))) {
          if (verdict.state === 'SUCCEEDED') counts.succeeded += 1;
          else counts.failed += 1;
        } else if (verdict.routerAnswer && verdict.routerAnswer !== action.router_answer) {
          await q.updateRunning(this.deps.db, action.client_id, action.id, {
            router_answer: verdict.routerAnswer,
            updated_at: iso(this.deps.clock.now()),
          });
        }
      } catch (err) {
        this.deps.logger.warn(
          { ...errorFields(err, this.deps.logger), actionId: action.id },
          'kick not reconciled',
        );
      }
    }
    return counts;
  }

  async #judge(
    action: QoeActionsTable,
    now: Date,
    activeLists: Map<string, Promise<{ user: string; address: string }[] | null>>,
  ): Promise<KickVerdict> {
    const { client_id: clientId } = action;
    if (action.command_id === null && now.getTime() - Date.parse(action.created_at) >= DISPATCH_GRACE_MS)
      action = { ...action, command_id: await this.#dispatch(action) };
    const command = action.command_id
      ? await this.deps.commands.get(clientId, action.command_id).then((c) => ({
          state: c.state as CommandState,
          output: c.output,
        }))
      : null;
    const accounting = action.session_id
      ? (await this.deps.radius.sessionEnd(clientId, action.nas_id, action.session_id)).state
      : null;
    const evidence = {
      method: action.method,
      accounting,
      command,
      activeHolds: null as boolean | null,
      deadlinePassed: now.getTime() >= Date.parse(action.deadline_at),
    };
    const first = kickVerdict(evidence);
    // Only once the request has reached the router is its active list worth a read; a RUNNING
    // action, or one failing at its deadline, may still be seen to have ended there.
    if (first.state === 'SUCCEEDED' || first.reason === 'SESSION_NOT_FOUND' || command?.state !== 'DONE')
      return first;
    let read = activeLists.get(action.allocation_id);
    if (!read) {
      read = this.#activeList(clientId, action.allocation_id);
      activeLists.set(action.allocation_id, read);
    }
    const list = await read;
    if (list === null) return first;
    evidence.activeHolds = list.some(
      (s) => s.user === action.username && (action.framed_ip === null || s.address === action.framed_ip),
    );
    return kickVerdict(evidence);
  }

  async #activeList(clientId: string, allocationId: string) {
    const outcome = await this.deps.runner.run(
      { clientId, allocationId },
      'hotspot.active.usage',
      {},
      ACTIVE_READ_WAIT_MS,
    );
    return outcome.kind === 'done' ? outcome.output.sessions : null;
  }

  /** Queues the action's command and records its id; answers the id. */
  async #dispatch(action: QoeActionsTable): Promise<string> {
    const target = { clientId: action.client_id, allocationId: action.allocation_id };
    const timeoutMs = Math.max(1_000, Date.parse(action.deadline_at) - this.deps.clock.now().getTime());
    let queued;
    if (action.method === 'RADIUS_DISCONNECT') {
      const nas = await this.deps.nas.forAllocation(action.allocation_id);
      if (!nas || nas.clientId !== action.client_id) throw new Error('the NAS of this router is gone');
      const packet = disconnectRequest(nas.secret, {
        username: action.username,
        acctSessionId: action.session_id!,
        framedIp: action.framed_ip!,
      });
      queued = await this.deps.commands.enqueue(
        target.clientId,
        target.allocationId,
        'radius.disconnect',
        { packet: packet.toString('base64') },
        { timeoutMs },
      );
    } else {
      queued = await this.deps.commands.enqueue(
        target.clientId,
        target.allocationId,
        'hotspot.active.remove',
        { user: action.username, ...(action.framed_ip ? { address: action.framed_ip } : {}) },
        { timeoutMs },
      );
    }
    await q.updateRunning(this.deps.db, action.client_id, action.id, {
      command_id: queued.id,
      updated_at: iso(this.deps.clock.now()),
    });
    return queued.id;
  }

  async #settle(action: QoeActionsTable, verdict: KickVerdict): Promise<boolean> {
    const now = iso(this.deps.clock.now());
    return q.updateRunning(this.deps.db, action.client_id, action.id, {
      state: verdict.state,
      reason: verdict.reason ?? null,
      ended_by: verdict.endedBy ?? null,
      ...(verdict.routerAnswer ? { router_answer: verdict.routerAnswer } : {}),
      finished_at: now,
      updated_at: now,
    });
  }
}
