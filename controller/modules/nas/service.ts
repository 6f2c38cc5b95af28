// The NAS module's API: topology, promotion, deletion, enrolment, provisioning and verification of
// a client's RADIUS routers, and the RADIUS directory. Routers are only ever reached through their
// agent (AgentCommandRunner); other modules' data through their services.
import type { Clock } from '../../core/clock.js';
import { iso } from '../../core/clock.js';
import { chunks } from '../../core/chunks.js';
import { isUuid } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { Logger } from '../../logger.js';
import type { NasEntry } from '../../radius/index.js';
import type { AllocationView, AllocationsService } from '../allocations/index.js';
import type { ProfilesService } from '../tickets/index.js';
import type { DbNasDirectory } from './db-nas-directory.js';
import { NasDeployment, type DeploymentResult } from './deployment.js';
import { isRelayIdentity, relayIdentity } from './db-nas-directory.js';
import { deploymentInProgress, directRadiusOff, nasNotFound, tunnelNotConnected } from './errors.js';
import { NasRegistry } from './nas-registry.js';
import {
  nasView,
  provisioningBlock,
  sameSerial,
  tunnelStatus,
  type NasView,
  type ProvisioningBlock,
} from './nas-view.js';
import type { OpenSessionCounter } from './open-sessions.js';
import {
  CUT_SCRIPT_NAME,
  provisioningScript,
  RADIUS_TIMEOUT,
  radiusCutScript,
  SCRIPT_NAME,
  type RadiusTarget,
} from './provisioning-script.js';
import type { RadiusTargets } from './radius-targets.js';
import * as q from './queries.js';
import type { NasApplyMode, NasTable } from './tables.js';
import { buildTopology, type Topology } from './topology.js';
import { deployingReport, verifyRouter, type VerifyReport } from './verification.js';

export interface NasServiceDeps {
  db: Db;
  caps: DialectCapabilities;
  clock: Clock;
  logger: Logger;
  allocations: AllocationsService;
  runner: AgentCommandRunner;
  profiles: ProfilesService;
  sessions: OpenSessionCounter;
  directory: DbNasDirectory;
  /** Where each enrolled router sends RADIUS. */
  targets: RadiusTargets;
  /** Longest wait for each agent command of an enrolment or a verification. */
  bridgeTimeoutMs: number;
  /**
   * Told of each enrolment that went through: a server-mode deployment that completed, or the
   * verify that activated an app-applied NAS (`app_apply` sends nothing to the router by itself).
   */
  enrolled?: EnrolmentListener;
  /** Issues the NAS's telemetry bridge token at each enrolment (a new one replaces the old). */
  bridgeTokens?: BridgeTokenIssuer;
}

/** What a later module hands the NAS module to issue a NAS's bridge token; answers the token once. */
export interface BridgeTokenIssuer {
  issue(clientId: string, nasId: string, allocationId: string): Promise<string>;
}

/**
 * What a later module adds to the topology answer: members of the PRIMARY's entry and of the root
 * (the client equipment adds the PRIMARY's devices and web access, and the root's capabilities).
 */
export type TopologyExtension = (
  clientId: string,
  topology: Topology,
) => Promise<{ primary?: Record<string, unknown>; root?: Record<string, unknown> }>;

/** What a later module hands the NAS module to hear of enrolments; must not throw nor wait. */
export interface EnrolmentListener {
  routerEnrolled(clientId: string, allocationId: string): void;
}

export interface EnrolInput {
  routerSerial: string;
  applyMode: NasApplyMode;
  /**
   * How the router reaches RADIUS: through its agent's relay, or straight over a VPN from this
   * source address. Absent: as the router's NAS already does (through its agent for a new one).
   */
  transport?: { kind: 'relay' } | { kind: 'direct'; address: string };
}

export type EnrolResult = (
  | { apply_mode: 'app_apply'; nas: NasView; provisioning: ProvisioningBlock & { script: string } }
  | ({ apply_mode: 'server'; nas: NasView; provisioning: ProvisioningBlock } & Omit<DeploymentResult, 'nas'>)
) & { bridge_token?: string };

/** What other modules learn of a live NAS. */
export interface LiveNas {
  id: string;
  allocation_id: string;
  shortname: string;
  status: 'PENDING' | 'ACTIVE' | 'DELETED';
  role: 'PRIMARY' | 'MEMBER';
}

export class NasService {
  readonly directory: DbNasDirectory;
  readonly #registry: NasRegistry;
  readonly #deployment: NasDeployment;
  readonly #extensions: TopologyExtension[] = [];

  constructor(private readonly deps: NasServiceDeps) {
    this.directory = deps.directory;
    this.#registry = new NasRegistry(deps.db, deps.caps, deps.clock, deps.directory);
    this.#deployment = new NasDeployment({ ...deps, registry: this.#registry });
  }

  async topology(clientId: string): Promise<Topology> {
    const rows = await q.listLive(this.deps.db, clientId);
    const allocations = await this.#allocations(clientId);
    const active = rows.filter((r) => r.status === 'ACTIVE').map((r) => r.id);
    const sessions = await this.deps.sessions.openSessionsByNas(clientId, active);
    return buildTopology(rows, allocations, sessions);
  }

  /** Registers what a later module adds to the topology answer (`topologyAnswer`). */
  addTopologyExtension(extension: TopologyExtension): void {
    this.#extensions.push(extension);
  }

  /** The topology as the route answers it: `topology()` with what the extensions add. */
  async topologyAnswer(clientId: string): Promise<Topology & Record<string, unknown>> {
    const topology = await this.topology(clientId);
    let answer: Topology & Record<string, unknown> = { ...topology };
    for (const extend of this.#extensions) {
      const more = await extend(clientId, topology);
      answer = {
        ...answer,
        ...more.root,
        primary: answer.primary && more.primary ? { ...answer.primary, ...more.primary } : answer.primary,
      };
    }
    return answer;
  }

  promote(clientId: string, nasId: string) {
    if (!isUuid(nasId)) throw nasNotFound();
    return this.#registry.promote(clientId, nasId);
  }

  /** Soft-deletes a NAS; refused while its router is being deployed or while it is a PRIMARY with members. */
  async remove(clientId: string, nasId: string): Promise<NasTable> {
    if (!isUuid(nasId)) throw nasNotFound();
    return this.#registry.remove(clientId, nasId, async (trx, nas) => {
      const lock = await q.findLock(trx, clientId, nas.allocation_id);
      if (lock && Date.parse(lock.expires_at) > this.deps.clock.now().getTime()) {
        throw deploymentInProgress(lock, nas);
      }
    });
  }

  /**
   * Enrols the router whose agent reported `routerSerial`. `app_apply`: the NAS and its script,
   * nothing sent to the router. Server mode: deployed through the agent under the router's lock.
   */
  async enrol(clientId: string, input: EnrolInput): Promise<EnrolResult> {
    const allocation = await this.#allocationBySerial(clientId, input.routerSerial);
    if (!allocation || allocation.link_state !== 'CONNECTED')
      throw tunnelNotConnected(input.routerSerial, allocation);
    const nasname = this.#nasnameFor(allocation, input.transport);
    if (input.applyMode === 'app_apply') {
      const { nas } = await this.deps.db
        .transaction()
        .execute((trx) => this.#registry.resolve(trx, clientId, allocation, 'app_apply', nasname));
      this.directory.invalidate();
      return {
        ...(await this.#bridgeToken(clientId, nas.id, allocation.id)),
        apply_mode: 'app_apply',
        nas: await this.#view(clientId, nas, allocation),
        provisioning: {
          ...provisioningBlock(nas),
          script: provisioningScript(nas, this.#target(nas, allocation)),
        },
      };
    }
    const { nas, ...outcome } = await this.#deployment.run(clientId, allocation, { nasname });
    this.#enrolled(clientId, allocation.id);
    return {
      ...(await this.#bridgeToken(clientId, nas.id, allocation.id)),
      apply_mode: 'server',
      nas: await this.#view(clientId, nas, allocation),
      provisioning: provisioningBlock(nas),
      ...outcome,
    };
  }

  async provisioning(clientId: string, nasId: string) {
    const nas = await this.#find(clientId, nasId);
    const allocation = await this.deps.allocations.get(clientId, nas.allocation_id);
    const target = this.#target(nas, allocation);
    return {
      nas_id: nas.id,
      apply_mode: nas.apply_mode,
      status: nas.status,
      script_name: SCRIPT_NAME,
      script: provisioningScript(nas, target),
      radius: {
        transport: isRelayIdentity(nas.nasname) ? 'relay' : 'direct',
        address: target.address,
        authentication_port: target.authPort,
        accounting_port: target.acctPort,
        timeout: RADIUS_TIMEOUT,
        interim_update_seconds: target.interimSeconds,
      },
    };
  }

  /** Reads the router through its agent; a PENDING NAS whose router passes every check becomes ACTIVE. */
  async verify(
    clientId: string,
    nasId: string,
  ): Promise<
    VerifyReport & { nas: NasView; deployment: { status: 'DEPLOYING'; started_at: string } | null }
  > {
    let nas = await this.#find(clientId, nasId);
    const allocation = await this.deps.allocations.get(clientId, nas.allocation_id);
    const lock = await q.findLock(this.deps.db, clientId, nas.allocation_id);
    if (lock && Date.parse(lock.expires_at) > this.deps.clock.now().getTime()) {
      // The agent runs one command at a time: a read now would only queue behind the deployment.
      return {
        nas: await this.#view(clientId, nas, allocation),
        ...deployingReport(tunnelStatus(allocation) === 'CONNECTED'),
        deployment: { status: 'DEPLOYING', started_at: lock.started_at },
      };
    }
    const report = await verifyRouter(
      { ...this.deps, target: this.#target(nas, allocation) },
      clientId,
      nas,
      allocation,
    );
    if (report.verified) {
      await q.markVerified(this.deps.db, clientId, nas.id, iso(this.deps.clock.now()));
      const pending = nas.status === 'PENDING';
      nas = (await this.#registry.activate(clientId, nas.id)) ?? nas;
      // An app-applied enrolment goes through here, where its router first answers as a NAS.
      if (pending && nas.status === 'ACTIVE') this.#enrolled(clientId, nas.allocation_id);
    }
    return { nas: await this.#view(clientId, nas, allocation), ...report, deployment: null };
  }

  /**
   * Makes the router a RADIUS NAS for a migration: the same deployment as a server-mode enrolment,
   * without its hotspot synchronisation (the migration imported the router's profiles already).
   * @throws AppError RADIUS_PROVISION_ERROR, RADIUS_BRIDGE_UNAVAILABLE, DEPLOYMENT_IN_PROGRESS.
   */
  async deployForMigration(clientId: string, allocation: AllocationView): Promise<NasTable> {
    const { nas } = await this.#deployment.run(clientId, allocation, { syncHotspot: false });
    return nas;
  }

  /**
   * Stops the router's hotspot from asking RADIUS (return to local accounts). The `/radius` entry
   * stays, so a later migration or an enrolment finds it. Resolves with the agent's outcome.
   */
  cutRadius(clientId: string, allocationId: string, waitMs: number) {
    return this.deps.runner.run(
      { clientId, allocationId },
      'router.script.apply',
      { name: CUT_SCRIPT_NAME, source: radiusCutScript() },
      waitMs,
    );
  }

  /** A live (PENDING or ACTIVE) NAS of the client with its router slot; null when absent or another's. */
  async findLive(clientId: string, nasId: string): Promise<LiveNas | null> {
    if (!isUuid(nasId)) return null;
    const nas = await q.findLive(this.deps.db, clientId, nasId);
    return nas
      ? {
          id: nas.id,
          allocation_id: nas.allocation_id,
          shortname: nas.shortname,
          status: nas.status,
          role: nas.role,
        }
      : null;
  }

  /**
   * `findLive` for many (client, NAS) pairs in a statement per 500 ids: keyed by NAS id, only those
   * live and of the client asked for.
   */
  async findLiveMany(wanted: readonly { clientId: string; nasId: string }[]): Promise<Map<string, LiveNas>> {
    const clientOf = new Map(wanted.filter((w) => isUuid(w.nasId)).map((w) => [w.nasId, w.clientId]));
    const out = new Map<string, LiveNas>();
    for (const ids of chunks([...clientOf.keys()], 500))
      for (const nas of await q.findLiveMany(this.deps.db, ids))
        if (clientOf.get(nas.id) === nas.client_id)
          out.set(nas.id, {
            id: nas.id,
            allocation_id: nas.allocation_id,
            shortname: nas.shortname,
            status: nas.status,
            role: nas.role,
          });
    return out;
  }

  /** The client's live NAS, oldest first. */
  async listLiveNas(clientId: string): Promise<LiveNas[]> {
    return (await q.listLive(this.deps.db, clientId)).map((nas) => ({
      id: nas.id,
      allocation_id: nas.allocation_id,
      shortname: nas.shortname,
      status: nas.status,
      role: nas.role,
    }));
  }

  /** The router's live NAS id, or null when it has none. */
  async nasIdForAllocation(clientId: string, allocationId: string): Promise<string | null> {
    return (await q.findLiveForAllocation(this.deps.db, clientId, allocationId))?.id ?? null;
  }

  /** The RADIUS identity of an allocation's NAS (for the agent relay), or null when it has none. */
  forAllocation(allocationId: string): Promise<NasEntry | null> {
    return this.directory.forAllocation(allocationId);
  }

  /** Cancels the server-mode deployments whose lock has expired (what they created goes). */
  cancelExpiredDeployments(now: Date) {
    return this.#deployment.cancelExpired(now);
  }

  /** Where this NAS's router sends RADIUS; a direct NAS needs direct RADIUS listening. */
  #target(nas: Pick<NasTable, 'nasname'>, allocation: AllocationView | undefined): RadiusTarget {
    const target = this.deps.targets.forNas(nas, allocation);
    if (!target) throw directRadiusOff();
    return target;
  }

  /**
   * The nasname an enrolment asks for: the relay identity, the router's VPN source address, or
   * undefined to keep the NAS's own (a new NAS then gets the relay identity).
   */
  #nasnameFor(allocation: AllocationView, transport: EnrolInput['transport']): string | undefined {
    if (!transport) return undefined;
    if (transport.kind === 'relay') return relayIdentity(allocation.id);
    // Checked before anything is written: a script without a reachable server is no enrolment.
    if (!this.deps.targets.direct()) throw directRadiusOff();
    return transport.address;
  }

  /** The bridge token of this enrolment (`bridge_token`, shown once), when a module issues them. */
  async #bridgeToken(clientId: string, nasId: string, allocationId: string) {
    const issuer = this.deps.bridgeTokens;
    return issuer ? { bridge_token: await issuer.issue(clientId, nasId, allocationId) } : {};
  }

  #enrolled(clientId: string, allocationId: string): void {
    try {
      this.deps.enrolled?.routerEnrolled(clientId, allocationId);
    } catch (err) {
      // What follows an enrolment never undoes it.
      this.deps.logger.warn(
        { clientId, allocationId, err: (err as Error).message },
        'enrolment listener failed',
      );
    }
  }

  async #find(clientId: string, nasId: string): Promise<NasTable> {
    const nas = isUuid(nasId) ? await q.findLive(this.deps.db, clientId, nasId) : undefined;
    if (!nas) throw nasNotFound();
    return nas;
  }

  async #view(clientId: string, nas: NasTable, allocation: AllocationView): Promise<NasView> {
    const open = await this.deps.sessions.openSessionsByNas(clientId, [nas.id]);
    return nasView(nas, allocation, open.get(nas.id) ?? 0);
  }

  async #allocations(clientId: string): Promise<Map<string, AllocationView>> {
    return new Map((await this.deps.allocations.list(clientId)).map((a) => [a.id, a]));
  }

  /**
   * The tenant's allocation whose agent reported this serial. A router re-enrolled on a new slot
   * leaves the old one behind: a live (not revoked) slot first, a connected one first, then the
   * freshest facts.
   */
  async #allocationBySerial(clientId: string, serial: string): Promise<AllocationView | undefined> {
    const candidates = (await this.deps.allocations.list(clientId)).filter(
      (a) => a.status !== 'REVOKED' && sameSerial(a.router.serial, serial),
    );
    const rank = (a: AllocationView) => (a.link_state === 'CONNECTED' ? 1 : 0);
    candidates.sort(
      (a, b) => rank(b) - rank(a) || (b.router.updated_at ?? '').localeCompare(a.router.updated_at ?? ''),
    );
    return candidates[0];
  }
}
