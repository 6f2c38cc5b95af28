// The router credentials the app deposits: sealed on the slot, then handed to that allocation's
// own agent (`router.login.set`, both fields secret params, redacted once the command is final),
// which logs in with them on a trial connection and, if the router accepts them, uses them for
// its API calls from then on. Sent at once when the agent is connected, else by a job once it is.
import { iso } from '../../core/clock.js';
import type { AgentTarget } from '../../hub/index.js';
import { emptySlot } from './empty-slot.js';
import type { RescueDeps } from './rescue-service.js';
import * as q from './queries.js';
import type { CredentialsBody } from './schemas.js';
import { sealContexts } from './seal-contexts.js';
import type { RemoteAccessSlotsTable } from './tables.js';

interface RouterCredentials {
  username: string;
  password: string;
  /** Absent: the port the agent already uses. */
  api_port?: number;
}

export class CredentialsService {
  constructor(private readonly deps: RescueDeps) {}

  /** Stores the credentials sealed and hands them to the agent; answers where they stand, never what. */
  async deposit(clientId: string, body: CredentialsBody) {
    const { db, clock, box, allocations } = this.deps;
    const allocation = await allocations.get(clientId, body.allocation_id);
    const now = iso(clock.now());
    await q.upsertSlot(
      db,
      emptySlot(clientId, allocation.id, allocation.router.routeros_version ?? 'unknown', now),
    );
    const plain: RouterCredentials = {
      username: body.username,
      password: body.password,
      ...(body.api_port !== undefined ? { api_port: body.api_port } : {}),
    };
    await q.updateSlot(db, clientId, allocation.id, {
      credentials_sealed: box.seal(JSON.stringify(plain), sealContexts.credentials(clientId, allocation.id)),
      credentials_updated_at: now,
      credentials_state: 'PENDING',
      credentials_fault: null,
      credentials_applied_at: null,
      updated_at: now,
    });
    await this.#handOver({ clientId, allocationId: allocation.id });
    return this.status(clientId, allocation.id);
  }

  async status(clientId: string, allocationId: string) {
    await this.deps.allocations.get(clientId, allocationId);
    const slot = await q.findSlot(this.deps.db, clientId, allocationId);
    return credentialsView(allocationId, slot);
  }

  /** The job: credentials not yet taken go to every agent that is connected now. */
  async handOverDue(): Promise<void> {
    for (const slot of await q.listCredentialsPending(this.deps.db))
      await this.#handOver({ clientId: slot.client_id, allocationId: slot.allocation_id }).catch(
        (err: unknown) =>
          this.deps.logger.warn(
            { allocationId: slot.allocation_id, err: (err as Error).message },
            'router credentials not handed over',
          ),
      );
  }

  async #handOver(target: AgentTarget): Promise<void> {
    const { db, clock, box, runner, allocations } = this.deps;
    const slot = await q.findSlot(db, target.clientId, target.allocationId);
    if (!slot?.credentials_sealed || slot.credentials_state !== 'PENDING') return;
    const allocation = await allocations.get(target.clientId, target.allocationId);
    // Not queued for an agent that is away: a password must not wait in a command for days.
    if (allocation.link_state !== 'CONNECTED') return;
    const version = slot.credentials_updated_at!;
    const c = JSON.parse(
      box.open(slot.credentials_sealed, sealContexts.credentials(target.clientId, target.allocationId)),
    ) as RouterCredentials;
    const outcome = await runner.run(
      target,
      'router.login.set',
      {
        user: c.username,
        password: c.password,
        ...(c.api_port !== undefined ? { api_port: c.api_port } : {}),
      },
      this.deps.commandWaitMs,
    );
    if (outcome.kind === 'timeout') return; // still PENDING: the job hands them over again
    const now = iso(clock.now());
    // A router out of reach says nothing of the credentials: PENDING with the fault, tried again.
    const settled =
      outcome.kind === 'done'
        ? { credentials_state: 'APPLIED' as const, credentials_fault: null, credentials_applied_at: now }
        : {
            credentials_state: outcome.fault.retryable ? ('PENDING' as const) : ('REFUSED' as const),
            credentials_fault: outcome.fault.code,
            credentials_applied_at: null,
          };
    await q.settleCredentials(db, target.clientId, target.allocationId, version, settled);
  }
}

function credentialsView(allocationId: string, slot: RemoteAccessSlotsTable | undefined) {
  const stored = Boolean(slot?.credentials_sealed);
  return {
    allocation_id: allocationId,
    stored,
    stored_at: stored ? slot!.credentials_updated_at : null,
    state: stored ? slot!.credentials_state : null,
    applied_at: stored ? slot!.credentials_applied_at : null,
    fault_code: stored ? slot!.credentials_fault : null,
  };
}
